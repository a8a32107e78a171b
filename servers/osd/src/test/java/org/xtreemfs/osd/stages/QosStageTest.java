package org.xtreemfs.osd.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.StripeLayout;

class QosStageTest {
    private static AuthorizedRequest request(String fileId) {
        return new AuthorizedRequest(new OsdRequest.GetFileSize(null, FileCredentials.getDefaultInstance(), fileId),
                "volume", 0, StripeLayout.single(4096));
    }

    @Test
    void aFullQueueRejectsWithOverloadedNamingTheBound() throws RpcException {
        // Proves the QoS stage never grows past osd.qos.queueCapacity and says so in the error.
        List<AuthorizedRequest> released = new CopyOnWriteArrayList<>();
        try (QosStage stage = new QosStage(new FifoQueueingPolicy<>(), 2, 1, released::add, discarded -> { })) {
            stage.submit(request("v:0"));
            await().until(() -> released.size() == 1);
            stage.submit(request("v:1"));
            stage.submit(request("v:2"));
            assertThatThrownBy(() -> stage.submit(request("v:3"))).isInstanceOfSatisfying(RpcException.class,
                    e -> assertThat(e.errorType()).isEqualTo(ErrorType.OVERLOADED))
                    .hasMessageContaining("full at 2 requests (osd.qos.queueCapacity)");
            assertThat(stage.queueLength()).isEqualTo(2);
            assertThat(stage.rejectedCount()).isEqualTo(1);
        }
    }

    @Test
    void requestsAreReleasedInFifoOrderOnlyWhileSlotsAreFree() throws RpcException {
        // Proves at most inFlightMax requests are in storage and completions release the next in order.
        List<AuthorizedRequest> released = new CopyOnWriteArrayList<>();
        try (QosStage stage = new QosStage(new FifoQueueingPolicy<>(), 10, 2, released::add, discarded -> { })) {
            for (int i = 0; i < 5; i++) {
                stage.submit(request("v:" + i));
            }
            await().until(() -> released.size() == 2);
            assertThat(stage.inFlight()).isEqualTo(2);
            assertThat(stage.queueLength()).isEqualTo(3);
            for (int expectedReleased = 3; expectedReleased <= 5; expectedReleased++) {
                stage.completed();
                int expected = expectedReleased;
                await().until(() -> released.size() == expected);
                assertThat(stage.inFlight()).isEqualTo(2);
            }
            assertThat(released).extracting(AuthorizedRequest::fileId)
                    .containsExactly("v:0", "v:1", "v:2", "v:3", "v:4");
            assertThat(stage.inFlight()).isEqualTo(2);
        }
    }

    @Test
    void aRequestRefusedInsideStorageFreesItsSlotAndTheNextOneIsReleased() throws RpcException {
        // Proves a completion reported from inside the storage callback (a full lane refuses the request and
        // the server completes it at once) keeps the in-flight count right and releases the requests behind it.
        List<AuthorizedRequest> released = new CopyOnWriteArrayList<>();
        AtomicReference<QosStage> stageReference = new AtomicReference<>();
        try (QosStage stage = new QosStage(new FifoQueueingPolicy<>(), 10, 1, request -> {
            released.add(request);
            if (request.fileId().equals("v:refused")) {
                stageReference.get().completed();
            }
        }, discarded -> { })) {
            stageReference.set(stage);
            stage.submit(request("v:0"));
            stage.submit(request("v:refused"));
            stage.submit(request("v:2"));
            assertThat(released).extracting(AuthorizedRequest::fileId).containsExactly("v:0");
            stage.completed();
            assertThat(released).extracting(AuthorizedRequest::fileId).containsExactly("v:0", "v:refused", "v:2");
            assertThat(stage.inFlight()).isEqualTo(1);
            assertThat(stage.queueLength()).isZero();
        }
    }
}
