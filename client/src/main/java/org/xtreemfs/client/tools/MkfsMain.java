package org.xtreemfs.client.tools;

import java.util.concurrent.Callable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.ReadRouting;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.xtreemfs.qos.model.Units;

/**
 * mkfs.xtreemfs: creates a volume. Without QoS options it creates a best-effort volume (no reservation);
 * with --qos it asks for a reservation whose required fields depend on the type.
 */
@Command(name = "mkfs.xtreemfs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Creates a volume on the MRC the DIR lists.",
                "URL is [pbrpc[s]://]host[:port]/volume; host:port is the DIR's (default port 32638).",
                "Sizes and rates use binary units only: B, KiB, MiB, GiB, TiB (e.g. 128KiB, 200GiB, 150MiB/s).",
                "QoS: sequential needs --capacity and --throughput; random needs --capacity and --iops;",
                "cold needs --capacity; best-effort takes an optional --capacity. Without --qos: no reservation.",
                "Any reservation takes --weight (its share of what reservations leave, default 1) and --limit (a",
                "cap at least the reservation: IOPS for random, bytes/s otherwise); a best-effort one needs --capacity",
                "for them. Admission ignores both: they book nothing.",
                "--replicas N keeps N copies of every file in a chain (head, ..., tail) on distinct OSDs; a reserved",
                "volume's reservation is then admitted on every copy's OSDs; --read-routing",
                "pattern|pattern-no-stealing|round-robin says where clients send its reads."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the volume was created", "1:the servers refused or could not be reached",
                "2:a bad option or value"})
public final class MkfsMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "URL", description = "The volume to create: [pbrpc[s]://]host[:port]/volume.")
    VolumeUrl url;

    @Option(names = {"-m", "--mode"}, paramLabel = "OCTAL", defaultValue = "0777",
            description = "Permission bits of the root directory, octal (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = {"-u", "--owner"}, paramLabel = "NAME",
            description = "Owner user name (default: the user running the tool).")
    String ownerUsername;

    @Option(names = "--owner-uid", paramLabel = "UID", description = "Owner uid (default: from the credentials).")
    Integer ownerUid;

    @Option(names = {"-g", "--owner-gid"}, paramLabel = "GID",
            description = "Owner group id (default: from the credentials).")
    Integer ownerGid;

    @Option(names = {"-w", "--striping-width"}, paramLabel = "N", defaultValue = "1",
            description = "Number of OSDs each file is striped over, 1.." + StripingRules.STRIPE_WIDTH_MAX
                    + " (default: ${DEFAULT-VALUE}).")
    int stripingWidth;

    @Option(names = {"-s", "--object-size"}, paramLabel = "SIZE",
            description = "Object (stripe unit) size, a multiple of 4KiB up to 16MiB (default: the MRC's, "
                    + "1MiB, or 128KiB for a volume with --qos or --replicas > 1).")
    String objectSize;

    @Option(names = {"-r", "--replicas"}, paramLabel = "N", defaultValue = "1",
            description = "Copies of each file, 1.." + ReplicationRules.REPLICAS_MAX + " (default: ${DEFAULT-VALUE}):"
                    + " N > 1 chain-replicates every file over N distinct OSDs (distinct hosts where there are"
                    + " several); a write is acknowledged once the last OSD of the chain has it on disk.")
    int replicas;

    @Option(names = "--read-routing", paramLabel = "POLICY", defaultValue = ReplicationRules.READ_ROUTING_PATTERN,
            description = "Where clients send reads of a replicated volume (default: ${DEFAULT-VALUE}): "
                    + ReplicationRules.READ_ROUTING_PATTERN + " (FAST: each open file's random reads to the head,"
                    + " sequential reads to the next replica, and an idle replica takes reads from a loaded one), "
                    + ReplicationRules.READ_ROUTING_PATTERN_NO_STEALING + " (the same without stealing, for"
                    + " comparison) or " + ReplicationRules.READ_ROUTING_ROUND_ROBIN + " (each open file bound to a"
                    + " replica in turn, for comparison).")
    String readRouting;

    @Option(names = "--osd-selection-policy", paramLabel = "NAME", defaultValue = "",
            description = "Name of the MRC's OSD selection strategy (default: the MRC's default).")
    String osdSelectionPolicy;

    @Option(names = "--qos", paramLabel = "TYPE",
            description = "Reservation type: sequential, random, cold or best-effort (default: none).")
    String qos;

    @Mixin
    ReservationOptions figures = new ReservationOptions();

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec commandSpec;

    public static void main(String[] args) {
        ToolRunner.main(new MkfsMain(), args);
    }

    @Override
    public Integer call() throws Exception {
        Volume request = volumeRequest();
        try (Client client = connection.connect(url)) {
            Volume created = client.createVolume(request);
            commandSpec.commandLine().getOut().println("created volume '" + created.getName() + "' id " + created.getId()
                    + " owner " + created.getOwnerUsername() + " mode " + Describe.mode(created.getMode())
                    + " striping " + Describe.striping(created.getDefaultStripingPolicy())
                    + " replication " + Describe.replication(created.getDefaultReplicationPolicy())
                    + " reservation " + Describe.reservation(created.getReservation()));
            Describe.placement(created.getPlacement(), uuid -> Describe.osdAddress(client, uuid))
                    .forEach(commandSpec.commandLine().getOut()::println);
            int createdWidth = created.getDefaultStripingPolicy().getWidth();
            if (created.getPlacement().getOsdUuidsCount() > 0 && createdWidth != stripingWidth) {
                // The MRC stripes a reserved volume's files over exactly its admitted OSDs.
                commandSpec.commandLine().getOut().println("note: files are striped over the " + createdWidth
                        + " OSD(s) of the admitted placement, not the --striping-width " + stripingWidth + " asked");
            }
        }
        return ToolRunner.EXIT_OK;
    }

    /** The volume to ask the MRC for, from the options; every bad value is refused naming its option. */
    Volume volumeRequest() {
        Volume.Builder volume = Volume.newBuilder().setName(url.volumeName());
        if (!"/".equals(url.path())) {
            throw new IllegalArgumentException("URL: '" + url + "' names a path inside the volume; give only"
                    + " [pbrpc[s]://]host[:port]/volume");
        }
        volume.setMode(parseMode(mode));
        if (ownerUsername != null) {
            if (ownerUsername.isBlank()) {
                throw new IllegalArgumentException("--owner: '" + ownerUsername + "' is empty");
            }
            volume.setOwnerUsername(ownerUsername);
        }
        if (ownerUid != null) {
            volume.setOwnerUid(requireId("--owner-uid", ownerUid));
        }
        if (ownerGid != null) {
            volume.setOwnerGid(requireId("--owner-gid", ownerGid));
        }
        StripingRules.stripeWidthProblem(stripingWidth).ifPresent(problem -> {
            throw new IllegalArgumentException("--striping-width: '" + stripingWidth + "' " + problem);
        });
        // Unset, the object size stays 0 in the request: the MRC is the one place that picks the default.
        long objectSizeBytes = 0;
        if (objectSize != null) {
            objectSizeBytes = Units.parseBytes("--object-size", objectSize);
            StripingRules.objectSizeProblem(objectSizeBytes).ifPresent(problem -> {
                throw new IllegalArgumentException("--object-size: '" + objectSize + "' " + problem);
            });
        }
        volume.setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                .setObjectSizeBytes((int) objectSizeBytes).setWidth(stripingWidth));
        ReplicationRules.replicasProblem(replicas).ifPresent(problem -> {
            throw new IllegalArgumentException("--replicas: '" + replicas + "' " + problem);
        });
        ReadRouting routing;
        try {
            routing = ReplicationRules.readRoutingNamed(readRouting);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--read-routing: " + e.getMessage());
        }
        volume.setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(replicas)
                .setReadRouting(routing));
        volume.setOsdSelectionPolicy(osdSelectionPolicy);
        QosReservation reservation = reservation();
        if (reservation != null) {
            volume.setReservation(reservation);
        }
        return volume.build();
    }

    /** The reservation the QoS options describe, or null when none was asked for. */
    private QosReservation reservation() {
        if (qos == null) {
            if (figures.firstGiven() != null) {
                throw new IllegalArgumentException(figures.firstGiven() + " needs --qos (sequential, random, cold or"
                        + " best-effort)");
            }
            return null;
        }
        return figures.forNewVolume(qos);
    }

    private static int parseMode(String text) {
        if (text == null || !text.matches("0?[0-7]{1,4}")) {
            throw new IllegalArgumentException("--mode: '" + text + "' is not an octal permission mode such as 0755");
        }
        return Integer.parseInt(text, 8);
    }

    private static int requireId(String option, int id) {
        if (id < 0) {
            throw new IllegalArgumentException(option + ": '" + id + "' must not be negative");
        }
        return id;
    }
}
