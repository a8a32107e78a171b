package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.BOB;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.RDWR;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectInvalidArgs;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * MRC_ADD_REPLICA, MRC_REPLICA_FILLED, MRC_REMOVE_REPLICA and MRC_VOLUME_SET_REPLICATION on a namespace core: each
 * chain change a new XLoc version, the filling replica before the tail, one at a time, the owner's right, the bounds.
 */
class ReplicaChangesTest {
    private final NamespaceFixture fixture = new NamespaceFixture();

    @Test
    void aReplicaJoinsBeforeTheTailFillingAndIsMarkedFilledThenRemoved() throws Exception {
        fixture.createVolume("vol");
        XLocSet first = fixture.open(fixture.as(ALICE), "vol", "/f", CREAT | RDWR, 0644).record().xlocs();
        assertThat(first.getReplicasCount()).isEqualTo(1);
        String sole = first.getReplicas(0).getOsdUuids(0);

        // One replica: the new one becomes the head, the old one stays the tail (it serves reads).
        XLocSet two = AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies, fixture.as(ALICE),
                "vol", "/f", List.of()).record().xlocs();
        assertThat(two.getVersion()).isEqualTo(first.getVersion() + 1);
        assertThat(two.getReplicasCount()).isEqualTo(2);
        assertThat(two.getReplicas(0).getFilling()).isTrue();
        assertThat(two.getReplicas(1).getOsdUuidsList()).containsExactly(sole);
        assertThat(two.getReplicas(0).getOsdUuids(0)).isNotEqualTo(sole);

        // One filling replica at a time.
        expectErrno(Errno.EBUSY, () -> AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies,
                fixture.as(ALICE), "vol", "/f", List.of()));
        XLocSet filled = ReplicaFilledOp.replicaFilled(fixture.namespace, fixture.ledger, fixture.as(ALICE), "vol",
                "/f", two.getReplicas(0).getOsdUuidsList()).record().xlocs();
        assertThat(filled.getVersion()).isEqualTo(two.getVersion() + 1);
        assertThat(filled.getReplicasList()).noneMatch(replica -> replica.getFilling());

        // Two replicas: the third joins between them; the fixture has three OSDs, so a fourth finds none.
        XLocSet three = AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies,
                fixture.as(ALICE), "vol", "/f", List.of()).record().xlocs();
        assertThat(three.getReplicas(1).getFilling()).isTrue();
        assertThat(three.getReplicas(2).getOsdUuidsList()).containsExactly(sole);
        ReplicaFilledOp.replicaFilled(fixture.namespace, fixture.ledger, fixture.as(ALICE), "vol", "/f",
                three.getReplicas(1).getOsdUuidsList());
        expectErrno(Errno.ENOSPC, () -> AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies,
                fixture.as(ALICE), "vol", "/f", List.of()));

        // Only the owner or root; a replica on the OSDs of another is refused naming them.
        expectErrno(Errno.EPERM, () -> RemoveReplicaOp.removeReplica(fixture.namespace, fixture.ledger,
                fixture.as(BOB), "vol", "/f", List.of(sole)));
        expectErrno(Errno.EINVAL, () -> RemoveReplicaOp.removeReplica(fixture.namespace, fixture.ledger,
                fixture.as(ALICE), "vol", "/f", List.of("osd-x")));
        ReplicaChanges.Result removed = RemoveReplicaOp.removeReplica(fixture.namespace, fixture.ledger,
                fixture.as(ALICE), "vol", "/f", List.of(sole));
        XLocSet after = removed.record().xlocs();
        assertThat(after.getReplicasCount()).isEqualTo(2);
        assertThat(after.getVersion()).isEqualTo(three.getVersion() + 2);
        assertThat(removed.removed().orElseThrow().getReplicasList()).singleElement()
                .satisfies(replica -> assertThat(replica.getOsdUuidsList()).containsExactly(sole));
        assertThat(removed.removed().orElseThrow().getVersion()).isEqualTo(after.getVersion());
        RemoveReplicaOp.removeReplica(fixture.namespace, fixture.ledger, fixture.as(ROOT), "vol", "/f",
                after.getReplicas(1).getOsdUuidsList());
        expectErrno(Errno.EINVAL, () -> RemoveReplicaOp.removeReplica(fixture.namespace, fixture.ledger,
                fixture.as(ALICE), "vol", "/f", fixture.open(fixture.as(ALICE), "vol", "/f", RDWR, 0).record()
                        .xlocs().getReplicas(0).getOsdUuidsList()));
    }

    // Removing the tail of [head, filling, tail] keeps the filling replica off the tail: it moves before the head.
    @Test
    void aFillingReplicaIsNeverLeftAsTheTail() throws Exception {
        fixture.createVolume("vol");
        fixture.open(fixture.as(ALICE), "vol", "/g", CREAT | RDWR, 0644);
        XLocSet two = AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies, fixture.as(ALICE),
                "vol", "/g", List.of()).record().xlocs();
        ReplicaFilledOp.replicaFilled(fixture.namespace, fixture.ledger, fixture.as(ALICE), "vol", "/g",
                two.getReplicas(0).getOsdUuidsList());
        XLocSet three = AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies,
                fixture.as(ALICE), "vol", "/g", List.of()).record().xlocs();
        XLocSet after = RemoveReplicaOp.removeReplica(fixture.namespace, fixture.ledger, fixture.as(ALICE), "vol",
                "/g", three.getReplicas(2).getOsdUuidsList()).record().xlocs();
        assertThat(after.getReplicasCount()).isEqualTo(2);
        assertThat(after.getReplicas(0).getFilling()).isTrue();
        assertThat(after.getReplicas(1).getFilling()).isFalse();
        assertThat(after.getReplicas(1).getOsdUuidsList()).isEqualTo(three.getReplicas(0).getOsdUuidsList());
    }

    @Test
    void theVolumePolicyChangesForNewFilesWithinTheBounds() throws Exception {
        fixture.createVolume("vol");
        Volume changed = VolumeSetReplicationOp.setReplication(fixture.namespace, fixture.ledger, fixture.policies,
                fixture.as(ROOT), "vol", ReplicationPolicy.newBuilder().setReplicas(3).build());
        assertThat(changed.getDefaultReplicationPolicy().getReplicas()).isEqualTo(3);
        assertThat(fixture.open(fixture.as(ALICE), "vol", "/new", CREAT | RDWR, 0644).record().xlocs()
                .getReplicasCount()).isEqualTo(3);
        assertThat(expectInvalidArgs(() -> VolumeSetReplicationOp.setReplication(fixture.namespace, fixture.ledger,
                fixture.policies, fixture.as(ROOT), "vol", ReplicationPolicy.newBuilder().setReplicas(9).build())))
                .contains("invalid replication replicas 9");
        assertThat(expectInvalidArgs(() -> VolumeSetReplicationOp.setReplication(fixture.namespace, fixture.ledger,
                fixture.policies, fixture.as(ROOT), "vol", ReplicationPolicy.newBuilder().setReplicas(4).build())))
                .contains("4 replicas");
        expectErrno(Errno.EPERM, () -> VolumeSetReplicationOp.setReplication(fixture.namespace, fixture.ledger,
                fixture.policies, fixture.as(BOB), "vol", ReplicationPolicy.newBuilder().setReplicas(2).build()));
    }
}
