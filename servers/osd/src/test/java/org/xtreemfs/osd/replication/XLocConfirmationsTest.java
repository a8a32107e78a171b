package org.xtreemfs.osd.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.osd.stages.ChainLink;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.ReplicaRole;
import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.model.VolumeShare;

/** The confirmation gate: which files wait for the MRC's XLoc, in order, and what it records in XLocVersions. */
class XLocConfirmationsTest {
    private static final String SELF = "osd-b";
    private final AtomicLong nowNanos = new AtomicLong(1_000_000_000L);
    private final Map<String, CompletableFuture<XLocSet>> asked = new ConcurrentHashMap<>();
    private final List<AuthorizedRequest> passed = new ArrayList<>();
    private final List<RpcException> failures = new ArrayList<>();
    private final XLocVersions versions = new XLocVersions(new InMemoryKvStore());
    private final XLocConfirmations views = new XLocConfirmations(SELF, request -> asked.computeIfAbsent(
            request.fileId(), file -> new CompletableFuture<>()), versions, nowNanos::get,
            (request, error) -> failures.add(error), 1_000, 2, 4);
    private final PreprocessingStage.Next gate = views.gate(passed::add);

    private static XLocSet xloc(int version, String... chain) {
        XLocSet.Builder xlocs = XLocSet.newBuilder().setVersion(version);
        for (String osd : chain) {
            xlocs.addReplicas(Replica.newBuilder().addOsdUuids(osd));
        }
        return xlocs.build();
    }

    private static AuthorizedRequest request(String fileId, XLocSet xlocs) {
        ReplicaRole role = xlocs.getReplicasCount() == 1 ? ReplicaRole.SOLE : ReplicaRole.MIDDLE;
        return new AuthorizedRequest(new OsdRequest.GetFileSize(null, FileCredentials.newBuilder().setXlocs(xlocs)
                .build(), fileId), "vol", VolumeShare.BEST_EFFORT, 0, new StripeLayout(65536, 1, 0),
                new ChainLink(role, Optional.empty()));
    }

    @Test
    void anUnreplicatedFilePassesWithoutAskingTheMrc() throws RpcException {
        gate.accept(request("v:1", xloc(1, SELF)));
        assertThat(passed).hasSize(1);
        assertThat(asked).isEmpty();
    }

    @Test
    void theFirstRequestsOfAFileWaitInOrderForTheMrcWhoseVersionIsRecorded() throws RpcException {
        AuthorizedRequest first = request("v:1", xloc(2, "osd-a", SELF));
        AuthorizedRequest second = request("v:1", xloc(2, "osd-a", SELF));
        gate.accept(first);
        gate.accept(second);
        assertThat(passed).isEmpty();
        assertThat(asked).containsOnlyKeys("v:1");
        asked.get("v:1").complete(xloc(2, "osd-a", SELF));
        assertThat(passed).containsExactly(first, second);
        assertThat(versions.newest("v:1")).as("the MRC's version, for the storage lane's check").isEqualTo(2);
        assertThat(views.confirmations()).isEqualTo(1);

        // Confirmed: later requests pass without asking again; an older XLoc than recorded is refused.
        gate.accept(request("v:1", xloc(3, "osd-a", SELF)));
        assertThat(passed).hasSize(3);
        assertThat(asked).hasSize(1);
        assertThatThrownBy(() -> gate.accept(request("v:1", xloc(2, "osd-a", SELF))))
                .isInstanceOfSatisfying(RpcException.class,
                        refused -> assertThat(refused.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
    }

    @Test
    void anOsdTheMrcRemovedRecordsTheVersionThatOutdatesTheOldXLocAfterItComesBack() throws RpcException {
        gate.accept(request("v:2", xloc(1, "osd-a", SELF)));
        asked.get("v:2").complete(xloc(2, "osd-a"));
        assertThat(passed).isEmpty();
        assertThat(failures).singleElement().satisfies(refused ->
                assertThat(refused.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        assertThatThrownBy(() -> gate.accept(request("v:2", xloc(1, "osd-a", SELF))))
                .isInstanceOfSatisfying(RpcException.class,
                        refused -> assertThat(refused.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        assertThat(versions.newest("v:2")).as("recorded in the one authority").isEqualTo(2);
    }

    @Test
    void aMalformedAnswerRecordsNothingAndFailsTheWaitingRequests() throws RpcException {
        gate.accept(request("v:6", xloc(1, "osd-a", SELF)));
        asked.remove("v:6").complete(XLocSet.newBuilder().setVersion(9).build());
        assertThat(passed).isEmpty();
        assertThat(failures).singleElement().satisfies(error ->
                assertThat(error.errorType()).isEqualTo(ErrorType.OVERLOADED));
        assertThat(versions.newest("v:6")).isEqualTo(1);
    }

    @Test
    void aHeartbeatGapMakesEveryViewAskTheMrcAgain() throws RpcException {
        gate.accept(request("v:3", xloc(1, "osd-a", SELF)));
        asked.remove("v:3").complete(xloc(1, "osd-a", SELF));
        views.heartbeatAccepted();
        gate.accept(request("v:3", xloc(1, "osd-a", SELF)));
        assertThat(asked).isEmpty();
        assertThat(passed).hasSize(2);

        nowNanos.addAndGet(1_500_000_000L); // silent longer than the 1 s doubt bound
        views.heartbeatAccepted();
        gate.accept(request("v:3", xloc(1, "osd-a", SELF)));
        assertThat(passed).hasSize(2);
        assertThat(asked).containsOnlyKeys("v:3");
    }

    @Test
    void anMrcFailureAnswersTheWaitingRequestsOverloadedAndTheNextOneAsksAgain() throws RpcException {
        gate.accept(request("v:4", xloc(1, "osd-a", SELF)));
        asked.remove("v:4").completeExceptionally(new IllegalStateException("MRC down"));
        assertThat(failures).singleElement().satisfies(error -> {
            assertThat(error.errorType()).isEqualTo(ErrorType.OVERLOADED);
            assertThat(error).hasMessageContaining("MRC down");
        });
        gate.accept(request("v:4", xloc(1, "osd-a", SELF)));
        assertThat(asked).containsOnlyKeys("v:4");
    }

    @Test
    void waitingRequestsPerFileAreBounded() throws RpcException {
        for (int i = 0; i < 4; i++) {
            gate.accept(request("v:5", xloc(1, "osd-a", SELF)));
        }
        assertThatThrownBy(() -> gate.accept(request("v:5", xloc(1, "osd-a", SELF))))
                .isInstanceOfSatisfying(RpcException.class,
                        refused -> assertThat(refused.errorType()).isEqualTo(ErrorType.OVERLOADED));
    }
}
