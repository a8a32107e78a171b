package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.RDWR;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * Replicas of a reserved volume (ReservedReplicas' rule) on the fixture's three sequential SSD OSDs seq-1..3: the
 * volume's count raised and lowered through the ledger, MRC_ADD_REPLICA only on OSDs holding its share, and a dead
 * member's replacement moving its share, each in the file's or volume's batch (the ledger reloaded from the store
 * equals the published one).
 */
class ReservedReplicasTest {
    private static final long THROUGHPUT_AT_TWO_STREAMS = OsdProfiles.sataSsd(
            org.xtreemfs.qos.model.OsdUsageType.SEQUENTIAL).sequentialThroughput().admissibleBytesPerSecond(2);

    private final NamespaceFixture fixture = new NamespaceFixture();
    private long nowMs = 1_767_225_600_000L;

    /** Every OSD of the fixture, those in {@code dead} reported unavailable. */
    private static List<OsdReport> reportsWithDead(String... dead) {
        Set<String> deadSet = Set.of(dead);
        List<OsdReport> reports = new ArrayList<>();
        for (OsdReport report : NamespaceFixture.OSD_REPORTS) {
            reports.add(new OsdReport(report.uuid(), !deadSet.contains(report.uuid()), report.profile(),
                    report.wireProfile(), report.problem(), report.lastHeartbeatMs(), report.volumeAttainment()));
        }
        return reports;
    }

    /** The sequential OSDs not in {@code dead}, each on a host of its own, as candidates. */
    private static List<OsdCandidate> online(String... dead) {
        List<OsdCandidate> online = new ArrayList<>();
        for (String uuid : List.of("seq-1", "seq-2", "seq-3")) {
            if (!Set.of(dead).contains(uuid)) {
                online.add(new OsdCandidate(uuid, OsdUsageType.OSD_SEQUENTIAL, 100L << 30, 200L << 30, 5,
                        "host-" + uuid));
            }
        }
        return online;
    }

    private OperationContext context(String... dead) {
        nowMs += 1000;
        return OperationContext.of(ROOT, nowMs).withOsds(online(dead)).withOsdReports(reportsWithDead(dead));
    }

    private Volume reserved(String name, long throughput, int replicas) throws Exception {
        QosReservation reservation = QosReservation.newBuilder().setType(QosType.SEQUENTIAL)
                .setCapacityBytes(1L << 30).setThroughputBytesPerSecond(throughput).build();
        return fixture.createVolume(context(), Volume.newBuilder().setName(name).setMode(0777)
                .setReservation(reservation)
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(replicas)).build(),
                "00000000-0000-0000-0000-0000000000" + (10 + fixture.namespace.listVolumes().size()));
    }

    private List<List<String>> rows(Volume volume) {
        return fixture.ledger.replicaOsds(volume.getId()).orElseThrow();
    }

    private long reservedThroughput(String osd) {
        return fixture.ledger.status(reportsWithDead()).getOsdsList().stream().filter(state -> state.getUuid()
                .equals(osd)).findFirst().orElseThrow().getReservedThroughputBytesPerSecond();
    }

    /** The ledger as the store holds it equals the published one (the change was in the committed batch). */
    private void assertLedgerPersisted(Volume volume) {
        ReservationLedger reloaded = ReservationLedger.load(fixture.store, new ReservationScheduler());
        assertThat(reloaded.replicaOsds(volume.getId())).isEqualTo(fixture.ledger.replicaOsds(volume.getId()));
        assertThat(reloaded.summary()).isEqualTo(fixture.ledger.summary());
    }

    private XLocSet open(String volume, String path) throws Exception {
        return fixture.open(context(), volume, path, CREAT | RDWR, 0644).record().xlocs();
    }

    @Test
    void raisingAReservedVolumeAdmitsItsShareOnANewOsdAndAddReplicaUsesIt() throws Exception {
        Volume volume = reserved("r2", 10L << 20, 2);
        List<List<String>> before = rows(volume);
        XLocSet file = open("r2", "/f");
        assertThat(file.getReplicasCount()).isEqualTo(2);
        // Every placement replica is in the file's chain: nothing admits a third copy yet.
        assertThat(expectErrno(Errno.ENOSPC, () -> AddReplicaOp.addReplica(fixture.namespace, fixture.ledger,
                fixture.policies, context(), "r2", "/f", List.of()))).contains("all in the file's chain already")
                .contains("raise the volume's replication first");

        Volume raised = VolumeSetReplicationOp.setReplication(fixture.namespace, fixture.ledger, fixture.policies,
                context(), "r2", ReplicationPolicy.newBuilder().setReplicas(3).build());
        assertThat(raised.getDefaultReplicationPolicy().getReplicas()).isEqualTo(3);
        List<List<String>> after = rows(volume);
        assertThat(after).hasSize(3).startsWith(before.get(0), before.get(1));
        String third = after.get(2).get(0);
        assertThat(third).startsWith("seq-");
        assertThat(reservedThroughput(third)).isEqualTo(10L << 20);
        assertThat(fixture.namespace.volume("r2")).isEqualTo(raised);
        assertLedgerPersisted(volume);

        XLocSet three = AddReplicaOp.addReplica(fixture.namespace, fixture.ledger, fixture.policies, context(), "r2",
                "/f", List.of()).record().xlocs();
        assertThat(FileReplicasOf.osds(three)).containsExactlyInAnyOrder("seq-1", "seq-2", "seq-3");
        assertThat(open("r2", "/new").getReplicasCount()).as("new files get the raised count").isEqualTo(3);

        // A fourth copy needs a fourth sequential OSD.
        assertThat(expectErrno(Errno.ENOSPC, () -> VolumeSetReplicationOp.setReplication(fixture.namespace,
                fixture.ledger, fixture.policies, context(), "r2", ReplicationPolicy.newBuilder().setReplicas(4)
                        .build()))).contains("cannot change the replication of volume 'r2' to 4 replica(s)")
                .contains("4 replicas need 4 distinct OSDs but only 3 available OSDs accept");
        assertThat(rows(volume)).isEqualTo(after);

        // Lowering releases the last replica's share; existing files keep their copies.
        VolumeSetReplicationOp.setReplication(fixture.namespace, fixture.ledger, fixture.policies, context(), "r2",
                ReplicationPolicy.newBuilder().setReplicas(2).build());
        assertThat(rows(volume)).isEqualTo(before);
        assertThat(reservedThroughput(third)).isZero();
        assertLedgerPersisted(volume);
    }

    @Test
    void aRaiseNoOsdHasRoomForIsRefusedNamingTheShortDimension() throws Exception {
        // "hog" takes 80 % of one OSD's two-stream throughput, so a 30 % copy of "r" fits only on the other two.
        Volume hog = reserved("hog", THROUGHPUT_AT_TWO_STREAMS * 8 / 10, 1);
        Volume volume = reserved("r", THROUGHPUT_AT_TWO_STREAMS * 3 / 10, 2);
        assertThat(ReservedReplicas.members(rows(volume))).doesNotContainAnyElementsOf(rows(hog).get(0));
        String message = expectErrno(Errno.ENOSPC, () -> VolumeSetReplicationOp.setReplication(fixture.namespace,
                fixture.ledger, fixture.policies, context(), "r", ReplicationPolicy.newBuilder().setReplicas(3)
                        .build()));
        assertThat(message).contains("volume 'r'").contains("throughput short by");
        assertThat(rows(volume)).hasSize(2);
        assertThat(fixture.namespace.volume("r").getDefaultReplicationPolicy().getReplicas()).isEqualTo(2);
    }

    @Test
    void aDeadMembersShareMovesWithItsReplacementAndLaterFilesUseTheMovedReplica() throws Exception {
        Volume volume = reserved("rc", 10L << 20, 2);
        XLocSet f = open("rc", "/f");
        XLocSet g = open("rc", "/g");
        String dead = f.getReplicas(1).getOsdUuids(0);
        String spare = "seq-" + (6 - Integer.parseInt(f.getReplicas(0).getOsdUuids(0).substring(4))
                - Integer.parseInt(dead.substring(4)));
        long inodeF = fixture.namespace.resolve(fixture.namespace.begin(), volume, ROOT, "/f").inode();
        long inodeG = fixture.namespace.resolve(fixture.namespace.begin(), volume, ROOT, "/g").inode();

        ReplicaFailedOp.Reformation reformed = ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger,
                fixture.policies, online(dead), reportsWithDead(dead), volume.getId(), inodeF, 1, dead, false);
        assertThat(reformed.shortBy()).isZero();
        assertThat(reformed.replacement().orElseThrow().getOsdUuidsList()).containsExactly(spare);
        assertThat(reformed.xlocs().getReplicasCount()).isEqualTo(2);
        assertThat(rows(volume)).as("the dead OSD's share moved").containsExactly(List.of(f.getReplicas(0)
                .getOsdUuids(0)), List.of(spare));
        assertThat(reservedThroughput(dead)).isZero();
        assertThat(reservedThroughput(spare)).isEqualTo(10L << 20);
        assertLedgerPersisted(volume);

        // The other file still lists the dead OSD: its replacement goes on the moved replica, no new admission.
        String ledgerBefore = fixture.ledger.summary().toString();
        ReplicaFailedOp.Reformation second = ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger,
                fixture.policies, online(dead), reportsWithDead(dead), volume.getId(), inodeG, g.getVersion(), dead,
                false);
        assertThat(second.replacement().orElseThrow().getOsdUuidsList()).containsExactly(spare);
        assertThat(fixture.ledger.summary().toString()).isEqualTo(ledgerBefore);
    }

    @Test
    void withNoOsdAdmittingTheShareTheChainStaysShortNamingTheReservation() throws Exception {
        Volume volume = reserved("full", 10L << 20, 3);
        XLocSet f = open("full", "/f");
        String dead = f.getReplicas(2).getOsdUuids(0);
        long inode = fixture.namespace.resolve(fixture.namespace.begin(), volume, ROOT, "/f").inode();
        String ledgerBefore = fixture.ledger.summary().toString();
        ReplicaFailedOp.Reformation reformed = ReplicaFailedOp.replicaFailed(fixture.namespace, fixture.ledger,
                fixture.policies, online(dead), reportsWithDead(dead), volume.getId(), inode, 1, dead, false);
        assertThat(reformed.shortBy()).isEqualTo(1);
        assertThat(reformed.replacement()).isEmpty();
        assertThat(reformed.xlocs().getReplicasCount()).isEqualTo(2);
        assertThat(fixture.ledger.summary().toString()).as("a refused move changes nothing").isEqualTo(ledgerBefore);
        assertThat(rows(volume)).flatExtracting(row -> row).contains(dead);
        // The reason ReplicaFailedOp logs (WARN "the chain stays at 2 replica(s), one short: ...") names the
        // reservation.
        ReservedReplicas.Refused refused = org.assertj.core.api.Assertions.catchThrowableOfType(
                ReservedReplicas.Refused.class, () -> ReservedReplicas.pick(fixture.ledger, volume,
                        reportsWithDead(dead), online(dead), Set.copyOf(FileReplicasOf.osds(reformed.xlocs()))));
        assertThat(refused.getMessage()).contains("no OSD admits the reservation share of replica 3 of volume 'full'")
                .contains("3 replicas need 3 distinct OSDs but only 2 available OSDs accept");
    }

    /** The OSDs of every replica of an XLoc. */
    private static final class FileReplicasOf {
        static List<String> osds(XLocSet xlocs) {
            List<String> osds = new ArrayList<>();
            xlocs.getReplicasList().forEach(replica -> osds.addAll(replica.getOsdUuidsList()));
            return osds;
        }
    }
}
