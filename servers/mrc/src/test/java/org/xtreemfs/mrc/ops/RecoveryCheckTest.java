package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.placement.OsdCandidate;

/**
 * The replica work each chain change records (ReplicaChanges.commit) and what {@link RecoveryCheck#check} does with
 * it, on a file chained over three OSDs: a replacement's fill found again, a short chain topped up once an OSD is
 * online (one replacement at a time), a caller's fill only in the first pass, records of finished or deleted files
 * removed, and a caller's chosen count ending what the MRC restores.
 */
class RecoveryCheckTest {
    private NamespaceFixture fixture;
    private String volumeId;
    private long inode;
    private XLocSet placed;

    @BeforeEach
    void replicatedFile() throws Exception {
        fixture = new NamespaceFixture();
        OpenResult opened = fixture.replicatedFile(3);
        volumeId = opened.volumeId();
        inode = opened.record().inode();
        placed = opened.record().xlocs();
        assertThat(work()).as("a placed chain has no work").isEmpty();
    }

    private String member(int replica) {
        return placed.getReplicas(replica).getOsdUuids(0);
    }

    private List<Namespace.ReplicaWork> work() {
        return fixture.namespace.replicaWork(null, 100);
    }

    private XLocSet stored() throws Exception {
        return fixture.namespace.inodeOf(fixture.namespace.begin(), volumeId, inode).xlocs();
    }

    /** The three members and {@code extra} online. */
    private List<OsdCandidate> online(String... extra) {
        return onlineWithout("", extra);
    }

    /** The members but {@code dead}, and {@code extra}, online. */
    private List<OsdCandidate> onlineWithout(String dead, String... extra) {
        List<OsdCandidate> online = new ArrayList<>();
        for (int replica = 0; replica < 3; replica++) {
            if (!member(replica).equals(dead)) {
                online.add(osd(member(replica)));
            }
        }
        for (String uuid : extra) {
            online.add(osd(uuid));
        }
        return online;
    }

    private static OsdCandidate osd(String uuid) {
        return new OsdCandidate(uuid, OsdUsageType.OSD_BEST_EFFORT, 100L << 30, 200L << 30, 5, "host-" + uuid);
    }

    private RecoveryCheck.Work check(List<OsdCandidate> online, boolean firstPass) throws Exception {
        List<Namespace.ReplicaWork> files = work();
        assertThat(files).hasSize(1);
        return RecoveryCheck.check(fixture.namespace, fixture.ledger, fixture.policies, online, List.of(), files.get(0),
                firstPass);
    }

    @Test
    void aShortChainIsToppedUpOnceAnOsdIsOnlineWithOneReplacementAtATime() throws Exception {
        XLocSet shortChain = ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger,
                fixture.policies, online(), List.of(), volumeId,
                inode, 1, member(1), false).xlocs();
        assertThat(shortChain.getReplicasCount()).isEqualTo(2);
        assertThat(work()).singleElement().satisfies(file -> {
            assertThat(file.targetReplicas()).as("the count to restore").isEqualTo(3);
            assertThat(file.inode()).isEqualTo(inode);
            assertThat(file.volumeId()).isEqualTo(volumeId);
        });

        RecoveryCheck.Work stillShort = check(onlineWithout(member(1)), false);
        assertThat(stillShort.shortStill()).isTrue();
        assertThat(stillShort.fill()).isEmpty();
        assertThat(stored()).as("nothing changes without an OSD").isEqualTo(shortChain);

        RecoveryCheck.Work toppedUp = check(onlineWithout(member(1), "osd-d"), false);
        assertThat(toppedUp.toppedUp()).isTrue();
        XLocSet three = stored();
        assertThat(three.getVersion()).isEqualTo(shortChain.getVersion() + 1);
        assertThat(three.getReplicasCount()).isEqualTo(3);
        assertThat(three.getReplicas(1).getFilling()).as("the replacement joins before the tail, filling").isTrue();
        assertThat(toppedUp.fill()).hasValue(List.of("osd-d"));
        assertThat(ReplicaChain.of(three).chainAt(0)).containsExactly(member(0), "osd-d", member(2));

        // The dead middle came back (no longer in the chain, so eligible) and osd-e registered: still one at a time.
        RecoveryCheck.Work again = check(online("osd-d", "osd-e"), false);
        assertThat(again.toppedUp()).as("no second replacement while one fills").isFalse();
        assertThat(again.fill()).as("the replacement's fill, found again").hasValue(toppedUp.fill().get());
        assertThat(stored()).isEqualTo(three);

        XLocSet filled = ReplicaFilledOp.replacementFilled(fixture.namespace, volumeId, inode, List.of("osd-d"));
        assertThat(filled.getReplicasList()).noneMatch(Replica::getFilling);
        assertThat(work()).as("whole and filled: no work left").isEmpty();
    }

    @Test
    void aReplacementsFillIsFoundAgainAfterARestart() throws Exception {
        XLocSet reformed = ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger, fixture.policies,
                online("osd-d"), List.of(), volumeId, inode, 1, member(2), false).xlocs();
        assertThat(reformed.getReplicasList()).anyMatch(Replica::getFilling);
        // A namespace opened again on the same store stands for the restarted MRC: the work is in the store.
        Namespace reopened = new Namespace(fixture.store, org.xtreemfs.foundation.kv.Durability.BUFFERED,
                org.xtreemfs.mrc.metadata.AtimePolicy.RELATIME);
        List<Namespace.ReplicaWork> files = reopened.replicaWork(null, 100);
        assertThat(files).hasSize(1);
        RecoveryCheck.Work work = RecoveryCheck.check(reopened, fixture.ledger, fixture.policies, online(), List.of(),
                files.get(0), false);
        assertThat(work.fill()).hasValue(List.of("osd-d"));
        assertThat(work.toppedUp()).isFalse();
    }

    @Test
    void aCallersFillIsTakenOnlyInTheFirstPassAndItsChosenCountEndsTheRestoring() throws Exception {
        ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger,
                fixture.policies, online(), List.of(), volumeId, inode, 1, member(0),
                false);
        assertThat(work()).singleElement().satisfies(file -> assertThat(file.targetReplicas()).isEqualTo(3));
        // The owner adds a replica itself (xtfsutil --set-replication): the count is its choice from now on.
        AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies,
                fixture.as(NamespaceFixture.ROOT), "chains", "/f", List.of("osd-x"));
        assertThat(work()).singleElement().satisfies(file -> assertThat(file.targetReplicas()).isZero());
        assertThat(check(online(), false).fill()).as("its caller fills it").isEmpty();
        assertThat(check(online(), true).fill()).as("after a start the MRC fills it too").hasValue(List.of("osd-x"));

        RemoveReplicaOp.removeReplica(fixture.namespace, fixture.ledger, fixture.as(NamespaceFixture.ROOT), "chains",
                "/f", List.of("osd-x"));
        assertThat(work()).as("a chain of the caller's chosen count, nothing filling").isEmpty();
    }

    @Test
    void theRecordOfADeletedFileIsRemoved() throws Exception {
        ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger,
                fixture.policies, online(), List.of(), volumeId, inode, 1, member(0),
                false);
        var transaction = fixture.namespace.begin();
        fixture.namespace.deleteInode(transaction, volumeId, inode);
        transaction.commit();
        RecoveryCheck.Work work = check(online("osd-d"), false);
        assertThat(work.fill()).isEmpty();
        assertThat(work.toppedUp()).isFalse();
        assertThat(work()).isEmpty();
    }

    @Test
    void deletingTheVolumeDeletesItsRecords() throws Exception {
        ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger,
                fixture.policies, online(), List.of(), volumeId, inode, 1, member(0),
                false);
        assertThat(work()).hasSize(1);
        fixture.deleteVolume(fixture.as(NamespaceFixture.ROOT), "chains");
        assertThat(work()).isEmpty();
    }
}
