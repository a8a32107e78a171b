package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileIds;

/** The chain re-formation rule of {@link ReplicaFailedOp#replicaFailed}, on a file chained over three OSDs. */
class ReplicaFailedOpTest {
    private NamespaceFixture fixture;
    private String volumeId;
    private long inode;
    private XLocSet placed;

    @BeforeEach
    void replicatedFile() throws Exception {
        fixture = new NamespaceFixture();
        volumeId = fixture.createVolume(fixture.as(NamespaceFixture.ROOT), Volume.newBuilder().setName("chains")
                .setMode(0777).setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(3)).build(),
                "00000000-0000-0000-0000-000000000001").getId();
        OpenResult opened = fixture.open(fixture.as(NamespaceFixture.ROOT), "chains", "/f",
                NamespaceFixture.CREAT | NamespaceFixture.RDWR, 0644);
        inode = opened.record().inode();
        placed = opened.record().xlocs();
        assertThat(placed.getVersion()).isEqualTo(1);
        assertThat(placed.getReplicasCount()).isEqualTo(3);
    }

    private String member(int replica) {
        return placed.getReplicas(replica).getOsdUuids(0);
    }

    private XLocSet report(int version, String osd, boolean alive) throws Exception {
        return ReplicaFailedOp.replicaFailed(fixture.namespace, volumeId, inode, version, osd, alive);
    }

    private XLocSet stored() throws Exception {
        return fixture.namespace.inodeOf(fixture.namespace.begin(), volumeId, inode).xlocs();
    }

    @Test
    void aDeadHeadIsRemovedAndTheMiddleBecomesTheHeadUnderTheNextVersion() throws Exception {
        XLocSet reformed = report(1, member(0), false);
        assertThat(reformed.getVersion()).isEqualTo(2);
        assertThat(ReplicaChain.of(reformed).chainAt(0)).containsExactly(member(1), member(2));
        assertThat(stored()).as("persisted").isEqualTo(reformed);
    }

    @Test
    void aDeadTailIsRemovedAndItsPredecessorBecomesTheTail() throws Exception {
        XLocSet reformed = report(1, member(2), false);
        assertThat(ReplicaChain.of(reformed).tailOsds()).containsExactly(member(1));
        assertThat(reformed.getVersion()).isEqualTo(2);
    }

    @Test
    void anOsdTheDirStillShowsAliveIsKept() throws Exception {
        assertThat(report(1, member(1), true)).isEqualTo(placed);
        assertThat(stored()).isEqualTo(placed);
    }

    @Test
    void aReportAgainstAnOlderVersionChangesNothingAndAnswersTheCurrentXLoc() throws Exception {
        XLocSet reformed = report(1, member(2), false);
        // A second writer saw the same failure with version 1, or reports another member of the old chain.
        assertThat(report(1, member(2), false)).isEqualTo(reformed);
        assertThat(report(1, member(0), false)).isEqualTo(reformed);
        assertThat(stored()).isEqualTo(reformed);
    }

    @Test
    void theLastReplicaIsNeverRemovedAndAnUnknownOsdChangesNothing() throws Exception {
        XLocSet two = report(1, member(0), false);
        XLocSet one = report(2, member(1), false);
        assertThat(one.getVersion()).isEqualTo(3);
        assertThat(one.getReplicasCount()).isEqualTo(1);
        assertThat(report(3, member(2), false)).isEqualTo(one);
        assertThat(report(3, "osd-unknown", false)).isEqualTo(one);
        assertThat(two.getReplicasCount()).isEqualTo(2);
    }

    /** Marks replica {@code filling} of the file as being filled, under version 2 (as MRC_ADD_REPLICA would). */
    private XLocSet withFillingReplica(int filling) throws Exception {
        XLocSet.Builder changed = placed.toBuilder().setVersion(2);
        changed.setReplicas(filling, placed.getReplicas(filling).toBuilder().setFilling(true));
        var transaction = fixture.namespace.begin();
        var record = fixture.namespace.inodeOf(transaction, volumeId, inode);
        fixture.namespace.putInode(transaction, volumeId, record.withXlocs(changed.build()));
        transaction.commit();
        return changed.build();
    }

    @Test
    void aFillingReplicaLeftLastWhenTheTailDiesMovesBeforeTheNewTail() throws Exception {
        // head, filling middle, tail: the tail dies; the filling replica must not become the tail.
        withFillingReplica(1);
        XLocSet reformed = report(2, member(2), false);
        assertThat(reformed.getVersion()).isEqualTo(3);
        assertThat(ReplicaChain.of(reformed).chainAt(0)).containsExactly(member(1), member(0));
        assertThat(reformed.getReplicas(0).getFilling()).isTrue();
        assertThat(reformed.getReplicas(1).getFilling()).isFalse();
    }

    @Test
    void aDeadMemberIsKeptWhenOnlyFillingReplicasWouldBeLeft() throws Exception {
        // head, filling middle, tail, after the head was removed: the filling replica and the tail are left; the
        // tail then dies, and the filling replica alone lacks the file's older data, so the chain is kept.
        withFillingReplica(1);
        XLocSet twoLeft = report(2, member(0), false);
        assertThat(ReplicaChain.of(twoLeft).chainAt(0)).containsExactly(member(1), member(2));
        assertThat(report(3, member(2), false)).isEqualTo(twoLeft);
        assertThat(stored()).isEqualTo(twoLeft);
    }

    @Test
    void withoutAnOsdTheCurrentXLocIsAnswered() throws Exception {
        assertThat(report(1, "", false)).isEqualTo(placed);
        assertThat(FileIds.fileId(volumeId, inode)).startsWith(volumeId);
    }
}
