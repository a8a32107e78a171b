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
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.mrc.placement.OsdCandidate;

/** The chain re-formation rule of {@link ReplicaFailedOp#replicaFailed}, on a file chained over three OSDs. */
class ReplicaFailedOpTest {
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
        assertThat(placed.getVersion()).isEqualTo(1);
        assertThat(placed.getReplicasCount()).isEqualTo(3);
    }

    private String member(int replica) {
        return placed.getReplicas(replica).getOsdUuids(0);
    }

    /** A report while the DIR shows no OSD outside the chain online: no replacement can be added. */
    private XLocSet report(int version, String osd, boolean alive) throws Exception {
        return ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger, fixture.policies, List.of(), List.of(),
                volumeId, inode, version, osd, alive).xlocs();
    }

    /** A report of a dead OSD while the DIR shows {@code online} OSDs available. */
    private ReplicaFailedOp.Reformation reportWith(int version, String osd, List<OsdCandidate> online)
            throws Exception {
        return ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger, fixture.policies, online, List.of(),
                volumeId, inode, version, osd, false);
    }

    private static OsdCandidate osd(String uuid, String host) {
        return new OsdCandidate(uuid, OsdUsageType.OSD_BEST_EFFORT, 100L << 30, 200L << 30, 5, host);
    }

    /** The three chain members (osd-a/b/c on hosts h1, h2, h3) and {@code extra}, as the DIR shows them online. */
    private List<OsdCandidate> onlineWith(OsdCandidate... extra) {
        List<OsdCandidate> online = new ArrayList<>();
        for (int replica = 0; replica < 3; replica++) {
            online.add(osd(member(replica), "h" + (replica + 1)));
        }
        online.addAll(List.of(extra));
        return online;
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
    void aRepeatedReportWithAReplacementHasOneEffect() throws Exception {
        // MRC_REPLICA_FAILED records no outcome: its version fence is what makes a repeat after a lost answer harmless.
        ReplicaFailedOp.Reformation first = reportWith(1, member(1), onlineWith(osd("osd-d", "h4"),
                osd("osd-e", "h5")));
        ReplicaFailedOp.Reformation repeated = reportWith(1, member(1), onlineWith(osd("osd-d", "h4"),
                osd("osd-e", "h5")));
        assertThat(repeated.xlocs()).as("answered the current XLoc, unchanged").isEqualTo(first.xlocs());
        assertThat(repeated.replacement()).as("no second replacement to fill").isEmpty();
        assertThat(repeated.shortBy()).isZero();
        assertThat(first.xlocs().getReplicasCount()).isEqualTo(3);
        assertThat(stored()).isEqualTo(first.xlocs());
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
    void aDeadMemberIsReplacedInTheSameVersionByAFillingReplicaBeforeTheTail() throws Exception {
        // The dead middle's OSD is still listed (the caller's list may be older than the DIR's verdict): it is a
        // member, so it is never picked; osd-d is the one OSD outside the chain.
        ReplicaFailedOp.Reformation reformation = reportWith(1, member(1), onlineWith(osd("osd-d", "h4")));
        XLocSet reformed = reformation.xlocs();
        assertThat(reformed.getVersion()).isEqualTo(2);
        assertThat(ReplicaChain.of(reformed).chainAt(0)).containsExactly(member(0), "osd-d", member(2));
        assertThat(reformed.getReplicas(1).getFilling()).as("the replacement fills before it serves").isTrue();
        assertThat(reformed.getReplicas(2).getFilling()).isFalse();
        assertThat(reformation.replacement()).hasValueSatisfying(replacement ->
                assertThat(replacement.getOsdUuidsList()).containsExactly("osd-d"));
        assertThat(reformation.shortBy()).isZero();
        assertThat(stored()).as("persisted in the re-formation's batch").isEqualTo(reformed);
    }

    @Test
    void aDeadTailsReplacementJoinsBeforeTheNewTailAndPrefersAHostTheChainDoesNotUse() throws Exception {
        // osd-e shares host h1 with the head; osd-f is on a host of its own: it is chosen, whatever the rotation.
        ReplicaFailedOp.Reformation reformation = reportWith(1, member(2),
                onlineWith(osd("osd-e", "h1"), osd("osd-f", "h9")));
        assertThat(ReplicaChain.of(reformation.xlocs()).chainAt(0)).containsExactly(member(0), "osd-f", member(1));
        assertThat(ReplicaChain.of(reformation.xlocs()).tailOsds()).containsExactly(member(1));
    }

    @Test
    void withoutAnOsdOutsideTheChainTheChainStaysShort() throws Exception {
        ReplicaFailedOp.Reformation reformation = reportWith(1, member(0), onlineWith());
        assertThat(reformation.xlocs().getReplicasCount()).isEqualTo(2);
        assertThat(reformation.replacement()).isEmpty();
        assertThat(reformation.shortBy()).isEqualTo(1);
    }

    @Test
    void noReplacementWhileAnotherReplicaIsFilling() throws Exception {
        withFillingReplica(1);
        ReplicaFailedOp.Reformation reformation = reportWith(2, member(0), onlineWith(osd("osd-d", "h4")));
        assertThat(reformation.xlocs().getReplicasCount()).isEqualTo(2);
        assertThat(reformation.replacement()).isEmpty();
        assertThat(reformation.shortBy()).isEqualTo(1);
    }

    @Test
    void aFilledReplacementLosesItsMarkUnderTheNextVersionOnce() throws Exception {
        XLocSet reformed = reportWith(1, member(1), onlineWith(osd("osd-d", "h4"))).xlocs();
        XLocSet filled = ReplicaFilledOp.replacementFilled(fixture.namespace, volumeId, inode, List.of("osd-d"));
        assertThat(filled.getVersion()).isEqualTo(reformed.getVersion() + 1);
        assertThat(filled.getReplicasList()).noneMatch(Replica::getFilling);
        assertThat(ReplicaChain.of(filled).chainAt(0)).containsExactly(member(0), "osd-d", member(2));
        assertThat(ReplicaFilledOp.replacementFilled(fixture.namespace, volumeId, inode, List.of("osd-d")))
                .as("a repeat changes nothing").isEqualTo(filled);
        assertThat(ReplicaFilledOp.replacementFilled(fixture.namespace, volumeId, inode, List.of(member(1))))
                .as("a replica no longer in the chain changes nothing").isEqualTo(filled);
        assertThat(stored()).isEqualTo(filled);
    }

    @Test
    void withoutAnOsdTheCurrentXLocIsAnswered() throws Exception {
        assertThat(report(1, "", false)).isEqualTo(placed);
        assertThat(FileIds.fileId(volumeId, inode)).startsWith(volumeId);
    }
}
