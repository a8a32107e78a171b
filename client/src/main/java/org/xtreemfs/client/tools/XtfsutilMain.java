package org.xtreemfs.client.tools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileReplicas;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.Units;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosHeadroom;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.Stat;
import picocli.CommandLine.Command;
import org.xtreemfs.qos.model.Reservation;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * xtfsutil (first version): prints what the client knows about a file or directory: volume, file id, type,
 * size, striping policy, the XLoc (OSD UUIDs and addresses by stripe position), the volume's reservation and
 * its current attainment (as its MRC sums it from the OSDs' heartbeats).
 */
@Command(name = "xtfsutil", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Shows the layout of a file or directory in XtreemFS: volume, striping, OSDs, and the",
                "volume's QoS reservation with its placement (each OSD's share, OSDs unavailable now).",
                "PATH is [pbrpc[s]://]host[:port]/volume[/path/in/volume]; host:port is the DIR's (default 32638),",
                "or an existing local path inside a mount.xtreemfs mount (found in /proc/self/mountinfo;",
                "a name that exists locally is taken as a local path, pbrpc:// forces a URL).",
                "It also prints the volume's current attainment, summed by its MRC from its OSDs' heartbeats (at",
                "most one OSD heartbeat period old): achieved against reserved (bytes/s on sequential OSDs, 4 KiB",
                "IOPS on random ones), queue depth, p99 latency and the fraction of 1-s windows in which the OSD",
                "gave >= 90 % of its share, per OSD and summed (the sum's fraction and p99 are the worst OSD's).",
                "  xtfsutil --set-reservation [--capacity SIZE] [--throughput RATE] [--iops N] [--weight N]",
                "           [--limit RATE] PATH",
                "      changes the reservation of PATH's volume online (figures not given stay as they are);",
                "      the MRC re-admits it on the OSDs the volume is placed on, or refuses saying why.",
                "      Weight and limit never need room (admission ignores them); the OSDs enforce a change",
                "      with the next capability the MRC signs (at the latest one renewal period later).",
                "  xtfsutil --set-replication N [--fill-rate RATE] PATH",
                "      on a volume (PATH names only the volume): the copies each new file gets (1..8); existing",
                "      files keep theirs. On a file: adds replicas one at a time, each filled from a live one in",
                "      the background at most RATE per OSD (default: the OSDs' osd.replication.fillBytesPerSecond)",
                "      while the file stays writable, or removes replicas (the head stays). A reserved volume's",
                "      count is admitted first (its share on each new copy's OSD; refused naming what is short),",
                "      and its files' copies go only on OSDs holding its share. A fill that was interrupted is",
                "      finished by running the same command again.",
                "  xtfsutil --free DIR_URL",
                "      per reservation type, the largest reservation the MRC would admit now."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:shown or changed", "1:the servers refused (e.g. no such file, a change that does not fit)"
                + " or could not be reached", "2:a bad option or value, or a local path that is not on an XtreemFS mount"})
public final class XtfsutilMain implements Callable<Integer> {
    private static final int S_IFMT = 0170000;

    @Parameters(index = "0", paramLabel = "PATH",
            description = "[pbrpc[s]://]host[:port]/volume[/path/in/volume] or a path in a mounted volume"
                    + " (with --free: the DIR, [pbrpc[s]://]host[:port])")
    String target;

    @Option(names = "--set-reservation", description = "Change the reservation of PATH's volume to the figures given.")
    boolean setReservation;

    @Mixin
    ReservationOptions figures = new ReservationOptions();

    @Option(names = "--set-replication", paramLabel = "N", description = "Set the replica count of PATH's"
            + " volume (for new files; PATH names the volume) or of the file PATH (filling new replicas in the"
            + " background). 1..8.")
    Integer setReplication;

    @Option(names = "--fill-rate", paramLabel = "RATE", description = "With --set-replication on a file: fill each new"
            + " replica's OSDs at most this fast, e.g. 8MiB/s (default: the OSDs' osd.replication.fillBytesPerSecond).")
    String fillRate;

    @Option(names = "--fill-timeout", paramLabel = "SECONDS", defaultValue = "3600", description = "With"
            + " --set-replication on a file: give up waiting for one replica's fill after this long (default 3600).")
    long fillTimeoutSeconds;

    @Option(names = "--free", description = "Show, per type, the largest reservation admitted now (PATH is a DIR URL).")
    boolean free;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec commandSpec;

    public static void main(String[] args) {
        ToolRunner.main(new XtfsutilMain(), args);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = commandSpec.commandLine().getOut();
        if (!setReservation && figures.firstGiven() != null) {
            throw new IllegalArgumentException(figures.firstGiven() + ": --capacity, --throughput, --iops, --weight"
                    + " and --limit go with --set-reservation");
        }
        if (free) {
            if (setReservation) {
                throw new IllegalArgumentException("--free and --set-reservation exclude each other");
            }
            return showFree(out, VolumeUrl.parseDirectoryService(target));
        }
        if (fillRate != null && setReplication == null) {
            throw new IllegalArgumentException("--fill-rate goes with --set-replication");
        }
        VolumeUrl url = urlOf(target);
        if (setReplication != null) {
            if (setReservation) {
                throw new IllegalArgumentException("--set-replication and --set-reservation exclude each other");
            }
            return changeReplication(out, url);
        }
        if (setReservation) {
            return changeReservation(out, url);
        }
        try (Client client = connection.connect(url)) {
            Volume volume = client.openVolume(url.volumeName());
            FileLayoutResponse layout = volume.fileLayout(url.path());
            Stat stat = layout.hasStat() ? layout.getStat() : volume.getattr(url.path());
            String volumeId = layout.getVolumeId().isEmpty() ? volume.id() : layout.getVolumeId();
            out.printf("%-17s %s%n", "path:", url);
            out.printf("%-17s %s (id %s, MRC %s)%n", "volume:", volume.name(), volumeId, volume.mrcUuid());
            out.printf("%-17s %s%n", "file id:", layout.getFileId().isEmpty()
                    ? volumeId + ":" + stat.getInode() : layout.getFileId());
            out.printf("%-17s %s%n", "type:", fileType(stat.getMode()));
            out.printf("%-17s %s%n", "mode:", Describe.mode(stat.getMode()));
            out.printf("%-17s uid %d gid %d%n", "owner:", stat.getUid(), stat.getGid());
            out.printf("%-17s %d bytes%n", "size:", stat.getSizeBytes());
            out.printf("%-17s %d%n", "truncate epoch:", stat.getTruncateEpoch());
            if (layout.getXlocs().getReplicasCount() == 0) {
                out.printf("%-17s %s%n", "XLoc:", "none (no objects: directory, link or file without an XLoc)");
            } else {
                out.printf("%-17s version %d, %d replica(s)%n", "XLoc:", layout.getXlocs().getVersion(),
                        layout.getXlocs().getReplicasCount());
                int replicaNumber = 1;
                int replicaCount = layout.getXlocs().getReplicasCount();
                for (Replica replica : layout.getXlocs().getReplicasList()) {
                    // Chain order (ReplicaChain): the first replica takes updates, the last serves reads.
                    String role = (replicaCount == 1 ? "" : replicaNumber == 1 ? " (head)"
                            : replicaNumber == replicaCount ? " (tail)" : " (middle)")
                            + (replica.getFilling() ? " (filling: serves no reads yet)" : "");
                    out.printf("  replica %d%s: striping %s%n", replicaNumber++, role,
                            Describe.striping(replica.getStripingPolicy()));
                    for (int position = 0; position < replica.getOsdUuidsCount(); position++) {
                        String osdUuid = replica.getOsdUuids(position);
                        out.printf("    stripe position %d: OSD %s at %s%n", position, osdUuid, Describe.osdAddress(client, osdUuid));
                    }
                }
            }
            int replicasHeld = layout.getXlocs().getReplicasCount();
            volumeRecord(client, volume.name()).ifPresent(record -> {
                out.printf("%-17s %s%n", "replication:", Describe.replication(record.getDefaultReplicationPolicy()));
                int policy = ReplicationRules.replicas(record.getDefaultReplicationPolicy());
                if (replicasHeld > 0 && replicasHeld < policy) {
                    // A dead member the MRC could not replace (servers/mrc README, "Chain re-formation"), or lowered.
                    out.printf("%-17s the file has %d of the policy's %d replicas (a dead member not replaced, or"
                            + " lowered with --set-replication)%n", "replicas short:", replicasHeld, policy);
                }
            });
            out.printf("%-17s %s%n", "reservation:", Describe.reservation(layout.getReservation()));
            printPlacement(out, client, layout.getPlacement());
            Describe.attainment(client.volumeAttainment(volume.name()), System.currentTimeMillis())
                    .forEach(out::println);
        }
        return ToolRunner.EXIT_OK;
    }

    /** The volume as the MRC lists it (its policies); empty if the listing no longer has it. */
    private static java.util.Optional<org.xtreemfs.interfaces.mrc.Volume> volumeRecord(Client client, String name)
            throws XtreemFSException {
        return client.listVolumes().stream().filter(record -> record.getName().equals(name)).findFirst();
    }

    private static void printPlacement(PrintWriter out, Client client, QosPlacement placement) {
        Describe.placement(placement, uuid -> Describe.osdAddress(client, uuid)).forEach(out::println);
    }

    private int changeReservation(PrintWriter out, VolumeUrl url) throws XtreemFSException {
        if (figures.firstGiven() == null) {
            throw new IllegalArgumentException("--set-reservation needs at least one of --capacity, --throughput,"
                    + " --iops, --weight, --limit");
        }
        figures.checkGivenFigures();
        try (Client client = connection.connect(url)) {
            Volume volume = client.openVolume(url.volumeName());
            QosReservation current = volume.fileLayout("/").getReservation();
            Reservation admitted = QosWire.reservation(current).orElseThrow(() -> new XtreemFSException(
                    org.xtreemfs.foundation.rpc.Errno.EINVAL, "volume '" + url.volumeName()
                            + "' has no reservation to change; reservations are given to mkfs.xtreemfs --qos"));
            Reservation changed = figures.changed(admitted);
            org.xtreemfs.interfaces.mrc.Volume result = client.setReservation(url.volumeName(),
                    QosWire.toWire(changed));
            out.printf("%-17s %s%n", "reservation:", Describe.reservation(result.getReservation()));
            printPlacement(out, client, result.getPlacement());
        }
        return ToolRunner.EXIT_OK;
    }

    /** --set-replication: the volume's policy when PATH is the volume, else the file's replicas (FileReplicas). */
    private int changeReplication(PrintWriter out, VolumeUrl url) throws XtreemFSException {
        java.util.Optional<String> problem = ReplicationRules.replicasProblem(setReplication);
        if (problem.isPresent()) {
            throw new IllegalArgumentException("--set-replication: " + setReplication + " " + problem.get());
        }
        long rate = 0;
        if (fillRate != null) {
            try {
                rate = Units.parseBytesPerSecond("--fill-rate", fillRate);
            } catch (InvalidQosValueException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
        }
        try (Client client = connection.connect(url)) {
            if (url.path().equals("/") || url.path().isEmpty()) {
                org.xtreemfs.interfaces.mrc.Volume result = client.setReplication(url.volumeName(), setReplication);
                out.printf("%-17s %s (new files; existing files keep theirs)%n", "replication:",
                        Describe.replication(result.getDefaultReplicationPolicy()));
                if (result.hasPlacement()) {
                    printPlacement(out, client, result.getPlacement()); // a reserved volume's copies, admitted
                }
                return ToolRunner.EXIT_OK;
            }
            Volume volume = client.openVolume(url.volumeName());
            FileReplicas.Outcome outcome = new FileReplicas(volume).setReplication(url.path(), setReplication, rate,
                    fillTimeoutSeconds * 1000);
            out.printf("%-17s %d -> %d replica(s), XLoc version %d%n", "replication:", outcome.replicasBefore(),
                    outcome.replicasAfter(), outcome.xlocs().getVersion());
            if (outcome.bytesCopied() > 0 || outcome.replicasAfter() > outcome.replicasBefore()) {
                out.printf("%-17s %d bytes in %d ms%n", "filled:", outcome.bytesCopied(), outcome.fillMs());
            }
        }
        return ToolRunner.EXIT_OK;
    }

    private int showFree(PrintWriter out, VolumeUrl dirUrl) throws XtreemFSException {
        QosStatus status;
        try (Client client = connection.connect(dirUrl)) {
            status = client.qosStatus();
        }
        long available = status.getOsdsList().stream().filter(OsdQosState::getAvailable).count();
        out.printf("largest reservation admitted now, per type (each figure with the other at its smallest;"
                + " %d of %d ledger OSDs available):%n", available, status.getOsdsCount());
        for (QosHeadroom headroom : status.getFreeList()) {
            out.printf("  %-12s %s%n", Describe.qosName(headroom.getType()), Describe.headroom(headroom));
        }
        return ToolRunner.EXIT_OK;
    }

    /** A local path inside a mount is looked up in the mount table; anything else must be a URL. */
    static VolumeUrl urlOf(String target) {
        return MountedPath.isLocalPath(target) ? MountedPath.urlOf(Path.of(target)) : VolumeUrl.parse(target);
    }

    static String fileType(int mode) {
        return switch (mode & S_IFMT) {
            case 0100000 -> "regular file";
            case 0040000 -> "directory";
            case 0120000 -> "symbolic link";
            case 0010000 -> "fifo";
            case 0140000 -> "socket";
            case 0020000 -> "character device";
            case 0060000 -> "block device";
            default -> "unknown (mode " + Integer.toOctalString(mode) + ")";
        };
    }
}
