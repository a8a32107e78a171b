package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.client.tools.LsfsMain;
import org.xtreemfs.client.tools.MkfsMain;
import org.xtreemfs.client.tools.RmfsMain;
import org.xtreemfs.client.tools.XtfsutilMain;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.Units;
import org.xtreemfs.qos.scheduler.Admission;
import org.xtreemfs.qos.scheduler.ClusterState;
import org.xtreemfs.qos.scheduler.Osd;
import org.xtreemfs.qos.scheduler.Placement;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * Admission on real servers, driven through the real tools: typed OSDs (two sequential HDDs, one random HDD,
 * one best-effort) register their profiles; mkfs admits or refuses with the scheduler's reason; concurrent
 * mkfs never double-books; rmfs releases; xtfsutil --set-reservation changes a reservation while the volume
 * is in use; a stopped OSD keeps its reservations at risk and takes no new volume. Profile figures are never
 * hard-coded: every amount is derived from the profiles and the ledger the MRC reports. Each test removes
 * the volumes it made, so every test starts from an empty ledger.
 */
class AdmissionTest {
    private static final int SEQUENTIAL_A = 0;
    private static final int SEQUENTIAL_B = 1;
    private static final int RANDOM = 2;
    private static final int BEST_EFFORT = 3;
    private static TestCluster cluster;
    private static Client client;
    private final List<String> volumesMade = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        Map<String, String> sequential = Map.of("osd.usage.type", "sequential", "osd.device.class", "hdd");
        cluster = TestCluster.start(List.of(sequential, sequential,
                Map.of("osd.usage.type", "random", "osd.device.class", "hdd"),
                Map.of("osd.usage.type", "best_effort", "osd.device.class", "ssd")), Map.of());
        client = cluster.qosClient();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void removeVolumes() {
        for (String name : volumesMade) {
            try {
                client.deleteVolume(name);
            } catch (XtreemFSException gone) {
                // refused or already removed by the test
            }
        }
        assertThat(ledgerVolumeCount()).as("every test leaves the ledger empty").isZero();
    }

    // ---- admit and refuse ----

    // An admitted reservation is placed on OSDs of its type, shown by mkfs, xtfsutil and lsfs --osds, and
    // booked in the ledger; refusals exit 1 with one line naming the short dimension and what would fit.
    @Test
    void admitsAndRefusesWithTheScheduler_sReason() {
        OsdQosState sequential = osd(SEQUENTIAL_A);
        long oneStreamBytesPerSecond = sequential.getLimitThroughputBytesPerSecond();
        long throughput = oneStreamBytesPerSecond / 4;
        ToolRun admitted = mkfs("seq", "--qos", "sequential", "--capacity", "1GiB", "--throughput", rate(throughput));
        assertThat(admitted.exitCode()).as(admitted.err()).isZero();
        QosPlacement placement = placement("seq");
        assertThat(placement.getOsdUuidsList()).hasSize(1).isSubsetOf(uuid(SEQUENTIAL_A), uuid(SEQUENTIAL_B));
        assertThat(admitted.out()).contains("placement:").contains(placement.getOsdUuids(0));
        OsdQosState booked = osd(placement.getOsdUuids(0));
        assertThat(booked.getReservedThroughputBytesPerSecond()).isEqualTo(throughput);
        assertThat(booked.getReservedCapacityBytes()).isEqualTo(Units.gibibytes(1));
        assertThat(booked.getVolumeIdsList()).containsExactly(volumeId("seq"));

        ToolRun shown = ToolRun.of(new XtfsutilMain(), cluster.dirUrl() + "/seq");
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("reservation:").contains("sequential capacity 1GiB")
                .contains("stripe position 0: OSD " + placement.getOsdUuids(0));
        ToolRun listed = ToolRun.of(new LsfsMain(), "--osds", cluster.dirUrl());
        assertThat(listed.exitCode()).as(listed.err()).isZero();
        assertThat(listed.out()).contains("OSD " + uuid(SEQUENTIAL_A)).contains("type sequential, device hdd")
                .contains("type random, device hdd").contains("type best-effort, device ssd")
                .contains("volumes:  seq (" + volumeId("seq") + ")").doesNotContain("UNAVAILABLE");

        // Throughput beyond both sequential OSDs together: throughput is short, capacity is not blamed.
        long tooFast = 2 * oneStreamBytesPerSecond + Units.mebibytes(1);
        ToolRun refused = mkfs("fast", "--qos", "sequential", "--capacity", "1GiB", "--throughput", rate(tooFast));
        assertRefusedNaming(refused, "throughput short by");
        assertThat(refused.err()).doesNotContain("capacity short").contains("largest admissible now: sequential");
        // Capacity beyond every random OSD, with a few IOPS that fit: capacity is short, and what fits is
        // offered with the IOPS as requested (the rounding bug offered nothing).
        long randomCapacity = osd(RANDOM).getLimitCapacityBytes();
        ToolRun tooBig = mkfs("big", "--qos", "random", "--capacity", size(4 * randomCapacity), "--iops", "3");
        assertRefusedNaming(tooBig, "capacity short by");
        assertThat(tooBig.err()).doesNotContain("iops short").doesNotContain("nothing of this type fits")
                .contains("largest admissible now: random " + Units.formatBytes(randomCapacity) + " 3IOPS");
        // A best-effort reservation has no OSD type problem here, but a cold one larger than all OSDs does.
        long allCapacity = status().getOsdsList().stream().mapToLong(OsdQosState::getLimitCapacityBytes).sum();
        assertRefusedNaming(mkfs("huge", "--qos", "cold", "--capacity", size(allCapacity + Units.gibibytes(1))),
                "capacity short by");
        assertThat(volumeNames()).contains("seq").doesNotContain("fast", "big", "huge");
    }

    // mkfs and the MRC refuse an object size beyond the one limit (the RPC data segment), naming the value.
    @Test
    void anObjectSizeBeyondTheLimitIsRefusedNamingIt() {
        String tooLarge = (2L * StripingRules.OBJECT_SIZE_BYTES_MAX >> 20) + "MiB";
        ToolRun refused = mkfs("objects", "--object-size", tooLarge);
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.err()).contains("--object-size").contains(tooLarge).doesNotContain("\tat ");
        long tooLargeBytes = 2L * StripingRules.OBJECT_SIZE_BYTES_MAX;
        // The MRC checks the same limit for clients that bypass the tool.
        assertThatThrownBy(() -> client.createVolume(Volume.newBuilder().setName("objects").setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes((int) tooLargeBytes).setWidth(1)).build()))
                .isInstanceOf(XtreemFSException.class).hasMessageContaining(Long.toString(tooLargeBytes));
        assertThat(ToolRun.of(new MkfsMain(), "--object-size", Units.formatBytes(StripingRules.OBJECT_SIZE_BYTES_MAX),
                cluster.dirUrl() + "/objects").exitCode()).isZero();
    }

    // Tool errors name the bad value and print no stack trace.
    @Test
    void toolErrorsNameTheBadValue() {
        ToolRun badRate = mkfs("bad", "--qos", "sequential", "--capacity", "1GiB", "--throughput", "fast");
        assertThat(badRate.exitCode()).isEqualTo(2);
        assertThat(badRate.err()).contains("fast").doesNotContain("\tat ");
        ToolRun badChange = ToolRun.of(new XtfsutilMain(), "--set-reservation", "--iops", "-5",
                cluster.dirUrl() + "/nothing");
        assertThat(badChange.exitCode()).isEqualTo(2);
        assertThat(badChange.err()).contains("-5").doesNotContain("\tat ");
        ToolRun badDir = ToolRun.of(new LsfsMain(), "--osds", "pbrpc://127.0.0.1:notaport");
        assertThat(badDir.exitCode()).isEqualTo(2);
        assertThat(badDir.err()).contains("notaport");
        ToolRun unknownType = mkfs("bad", "--qos", "speedy", "--capacity", "1GiB");
        assertThat(unknownType.exitCode()).isEqualTo(2);
        assertThat(unknownType.err()).contains("speedy");
    }

    // xtfsutil --free prints human figures rounded down, so each one typed back into mkfs is admitted (with
    // the other figure at its smallest, as the listing says).
    @Test
    void freeFiguresTypedBackAreAdmitted() {
        ToolRun free = ToolRun.of(new XtfsutilMain(), "--free", cluster.dirUrl());
        assertThat(free.exitCode()).as(free.err()).isZero();
        String sequential = free.out().lines().filter(line -> line.strip().startsWith("sequential")).findFirst()
                .orElseThrow();
        String random = free.out().lines().filter(line -> line.strip().startsWith("random")).findFirst().orElseThrow();
        String capacity = figureAfter(sequential, "capacity up to ");
        String throughput = figureAfter(sequential, "throughput up to ");
        String iops = figureAfter(random, "iops up to ");
        assertThat(capacity).as("human, not a raw KiB count").matches("[0-9]{1,4}(\\.[0-9]+)?[KMGTP]iB");
        long exactBytes = status().getFreeList().stream()
                .filter(headroom -> headroom.getType() == org.xtreemfs.interfaces.common.QosType.SEQUENTIAL)
                .findFirst().orElseThrow().getCapacityBytesMax();
        assertThat(Units.parseBytes("capacity", capacity)).as("rounded down by less than 2.5 %")
                .isLessThanOrEqualTo(exactBytes).isGreaterThan(exactBytes - exactBytes / 40);
        for (String[] options : List.of(
                new String[] {"--qos", "sequential", "--capacity", capacity, "--throughput", "1B/s"},
                new String[] {"--qos", "sequential", "--capacity", "1MiB", "--throughput", throughput},
                new String[] {"--qos", "random", "--capacity", "1MiB", "--iops", iops})) {
            ToolRun admitted = mkfs("typed-back", options);
            assertThat(admitted.exitCode()).as("%s: %s", String.join(" ", options), admitted.err()).isZero();
            assertThat(ToolRun.of(new RmfsMain(), cluster.dirUrl() + "/typed-back").exitCode()).isZero();
        }
    }

    private static String figureAfter(String line, String label) {
        int start = line.indexOf(label);
        assertThat(start).as("'%s' in '%s'", label, line).isNotNegative();
        String rest = line.substring(start + label.length());
        int end = rest.indexOf(',');
        return (end < 0 ? rest : rest.substring(0, end)).strip();
    }

    // ---- concurrency ----

    // Many mkfs at once from several threads (fixed seeds) never book more than an OSD's profile allows, and
    // every refused reservation does not fit the final state (which only grew, so it did not fit when refused).
    @Test
    void concurrentMkfsNeverDoubleBooks() throws Exception {
        long oneStream = osd(SEQUENTIAL_A).getLimitThroughputBytesPerSecond();
        long iops = osd(RANDOM).getLimitIops();
        long capacity = osd(RANDOM).getLimitCapacityBytes();
        int threads = 4;
        int attemptsPerThread = 6;
        Map<String, Reservation> attempts = new ConcurrentHashMap<>();
        Map<String, ToolRun> outcomes = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int thread = 0; thread < threads; thread++) {
                SplittableRandom random = new SplittableRandom(1_000 + thread);
                int threadNumber = thread;
                done.add(pool.submit(() -> {
                    for (int attempt = 0; attempt < attemptsPerThread; attempt++) {
                        String name = "c" + threadNumber + "-" + attempt;
                        long capacityBytes = Units.mebibytes(random.nextLong(1, capacity / 3 >> 20));
                        Reservation reservation = random.nextBoolean()
                                ? Reservation.sequential(capacityBytes, random.nextLong(oneStream / 8, oneStream / 2))
                                : Reservation.random(capacityBytes, random.nextLong(Math.max(1, iops / 6), iops / 2 + 2));
                        attempts.put(name, reservation);
                        outcomes.put(name, mkfs(name, reservationOptions(reservation)));
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> admitted = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        outcomes.forEach((name, run) -> {
            if (run.exitCode() == 0) {
                admitted.add(name);
            } else {
                assertRefusedNaming(run, "short by");
                refused.add(name);
            }
        });
        assertThat(admitted).as("some admitted").isNotEmpty();
        assertThat(refused).as("some refused: the attempts together exceed the OSDs").isNotEmpty();

        // Recompute each OSD's load from the admitted volumes' placements, against its profile's limits.
        QosStatus status = status();
        Map<String, OsdProfile> profiles = new HashMap<>();
        for (OsdQosState osd : status.getOsdsList()) {
            profiles.put(osd.getUuid(), QosWire.profile(osd.getProfile()));
        }
        Map<String, ResourceVector> load = new HashMap<>();
        Map<String, Integer> streams = new HashMap<>();
        List<Placement> placements = new ArrayList<>();
        for (String name : admitted) {
            QosPlacement placement = placement(name);
            Reservation reservation = QosWire.reservation(placement.getReservation()).orElseThrow();
            assertThat(reservation).as("admitted as asked").isEqualTo(attempts.get(name));
            placements.add(new Placement(volumeId(name), reservation, placement.getOsdUuidsList()));
            ResourceVector share = new ResourceVector(placement.getShareCapacityBytes(),
                    placement.getShareThroughputBytesPerSecond(), placement.getShareIops());
            assertThat(share).isEqualTo(reservation.demand().ceilDivide(placement.getOsdUuidsCount()));
            for (String osdUuid : placement.getOsdUuidsList()) {
                assertThat(profiles.get(osdUuid).usageType().accepts(reservation.type())).isTrue();
                load.merge(osdUuid, share, ResourceVector::plus);
                streams.merge(osdUuid, reservation.type().addsSequentialStream() ? 1 : 0, Integer::sum);
            }
        }
        for (OsdQosState osd : status.getOsdsList()) {
            ResourceVector onOsd = load.getOrDefault(osd.getUuid(), ResourceVector.ZERO);
            ResourceVector limits = profiles.get(osd.getUuid()).limits(streams.getOrDefault(osd.getUuid(), 0));
            assertThat(onOsd.fitsWithin(limits)).as("OSD %s carries %s, its profile allows %s", osd.getUuid(), onOsd,
                    limits).isTrue();
            assertThat(new ResourceVector(osd.getReservedCapacityBytes(), osd.getReservedThroughputBytesPerSecond(),
                    osd.getReservedIops())).as("the ledger books what the placements add up to").isEqualTo(onOsd);
        }
        // Every refusal is real: the reservation does not fit the final cluster state either.
        List<Osd> osds = new ArrayList<>();
        profiles.forEach((uuid, profile) -> osds.add(new Osd(uuid, profile)));
        ClusterState finalState = ClusterState.rebuild(osds, placements);
        ReservationScheduler scheduler = new ReservationScheduler();
        for (String name : refused) {
            assertThat(scheduler.admit(finalState, "probe", attempts.get(name)))
                    .as("refused %s %s fits the final state", name, attempts.get(name))
                    .isInstanceOf(Admission.Rejected.class);
        }
    }

    // ---- release ----

    // rmfs returns a reservation's resources exactly: the same reservation that was refused fits again.
    @Test
    void rmfsReleasesTheReservation() {
        OsdQosState random = osd(RANDOM);
        long freeIops = random.getLimitIops() - random.getReservedIops();
        String[] options = {"--qos", "random", "--capacity", "1GiB", "--iops", Long.toString(freeIops)};
        assertThat(mkfs("first", options).exitCode()).isZero();
        assertThat(osd(RANDOM).getReservedIops()).isEqualTo(random.getLimitIops());
        assertRefusedNaming(mkfs("second", options), "iops short by");
        ToolRun removed = ToolRun.of(new RmfsMain(), cluster.dirUrl() + "/first");
        assertThat(removed.exitCode()).as(removed.err()).isZero();
        assertThat(osd(RANDOM).getReservedIops()).isEqualTo(random.getReservedIops());
        ToolRun again = mkfs("second", options);
        assertThat(again.exitCode()).as(again.err()).isZero();
    }

    // ---- online change ----

    // xtfsutil --set-reservation grows and shrinks a reservation on its OSD and refuses one that does not
    // fit with the reason, while a client keeps writing and reading the volume, and after.
    @Test
    void setReservationChangesOnlineWhileTheVolumeIsInUse() throws Exception {
        long oneStream = osd(SEQUENTIAL_A).getLimitThroughputBytesPerSecond();
        assertThat(mkfs("live", "--qos", "sequential", "--capacity", "1GiB", "--throughput", rate(oneStream / 8))
                .exitCode()).isZero();
        String osdUuid = placement("live").getOsdUuids(0);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong rounds = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread user = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(3);
            try (FileHandle file = client.openVolume("live").open("/data", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                while (!stop.get() || rounds.get() < 3) {
                    byte[] data = new byte[64 * 1024 + random.nextInt(64 * 1024)];
                    random.nextBytes(data);
                    long offset = random.nextLong(4L << 20);
                    file.write(offset, data);
                    assertThat(file.read(offset, data.length)).isEqualTo(data);
                    rounds.incrementAndGet();
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "volume-user");
        user.start();
        try {
            ToolRun grown = ToolRun.of(new XtfsutilMain(), "--set-reservation", "--throughput", rate(oneStream / 2),
                    "--capacity", "2GiB", cluster.dirUrl() + "/live");
            assertThat(grown.exitCode()).as(grown.err()).isZero();
            assertThat(grown.out()).contains("sequential capacity 2GiB").contains(osdUuid);
            assertThat(osd(osdUuid).getReservedThroughputBytesPerSecond()).isEqualTo(oneStream / 2);
            ToolRun shrunk = ToolRun.of(new XtfsutilMain(), "--set-reservation", "--throughput", rate(oneStream / 16),
                    cluster.dirUrl() + "/live");
            assertThat(shrunk.exitCode()).as(shrunk.err()).isZero();
            assertThat(osd(osdUuid).getReservedThroughputBytesPerSecond()).isEqualTo(oneStream / 16);
            assertThat(osd(osdUuid).getReservedCapacityBytes()).isEqualTo(Units.gibibytes(2));
            ToolRun tooMuch = ToolRun.of(new XtfsutilMain(), "--set-reservation", "--throughput",
                    rate(oneStream + Units.mebibytes(1)), cluster.dirUrl() + "/live");
            assertRefusedNaming(tooMuch, "throughput short by");
            assertThat(tooMuch.err()).contains("its OSDs have no room");
            assertThat(osd(osdUuid).getReservedThroughputBytesPerSecond()).as("a refused change changes nothing")
                    .isEqualTo(oneStream / 16);
        } finally {
            stop.set(true);
            user.join(60_000);
        }
        assertThat(failure.get()).as("the volume stayed usable during the changes").isNull();
        assertThat(placement("live").getOsdUuidsList()).containsExactly(osdUuid);
        try (FileHandle file = client.openVolume("live").open("/after", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, new byte[] {1, 2, 3});
            assertThat(file.read(0, 3)).containsExactly(1, 2, 3);
        }
    }

    // ---- OSD loss and return ----

    // A stopped OSD is shown unavailable with its reservations at risk (kept, not released), takes no new
    // volume, and resumes its reservations when it returns on the same folder.
    @Test
    void aStoppedOsdKeepsItsReservationsAtRiskAndResumesThem() throws Exception {
        long oneStream = osd(SEQUENTIAL_A).getLimitThroughputBytesPerSecond();
        assertThat(mkfs("kept", "--qos", "sequential", "--capacity", "1GiB", "--throughput", rate(oneStream / 4))
                .exitCode()).isZero();
        String carrier = placement("kept").getOsdUuids(0);
        int carrierIndex = cluster.osdUuids().indexOf(carrier);
        String other = uuid(carrierIndex == SEQUENTIAL_A ? SEQUENTIAL_B : SEQUENTIAL_A);
        try (FileHandle file = client.openVolume("kept").open("/before", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, new byte[] {7});
        }
        cluster.stopOsd(carrierIndex);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> !osd(carrier).getAvailable());
            OsdQosState down = osd(carrier);
            assertThat(down.getVolumeIdsList()).as("kept, not dropped").containsExactly(volumeId("kept"));
            assertThat(down.getReservedThroughputBytesPerSecond()).isEqualTo(oneStream / 4);
            ToolRun listed = ToolRun.of(new LsfsMain(), "--osds", cluster.dirUrl());
            assertThat(listed.out()).contains("OSD " + carrier).contains("UNAVAILABLE")
                    .contains("reservations of its 1 volume(s) are at risk");
            ToolRun shown = ToolRun.of(new XtfsutilMain(), cluster.dirUrl() + "/kept");
            assertThat(shown.exitCode()).as(shown.err()).isZero();
            assertThat(shown.out()).contains("UNAVAILABLE: its share of the reservation is at risk");
            // New sequential volumes all go to the other sequential OSD. Three streams on one HDD deliver far
            // less than one (the derived hdd7200 curve falls steeply), so each asks for a small slice.
            for (int index = 0; index < 3; index++) {
                ToolRun placed = mkfs("while-down-" + index, "--qos", "sequential", "--capacity", "1GiB",
                        "--throughput", rate(oneStream / 64));
                assertThat(placed.exitCode()).as(placed.err()).isZero();
                assertThat(placement("while-down-" + index).getOsdUuidsList()).containsExactly(other);
            }
            // A reservation beyond the available OSDs is refused, saying the stopped one is not counted.
            ToolRun refused = mkfs("needs-both", "--qos", "sequential", "--capacity", "1GiB", "--throughput",
                    rate(oneStream + oneStream / 2));
            assertRefusedNaming(refused, "throughput short by");
            assertThat(refused.err()).contains("unavailable and not counted");
        } finally {
            cluster.startOsd(carrierIndex);
            cluster.awaitServicesAvailable();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> osd(carrier).getAvailable());
        OsdQosState back = osd(carrier);
        assertThat(back.getVolumeIdsList()).containsExactly(volumeId("kept"));
        assertThat(back.getReservedThroughputBytesPerSecond()).isEqualTo(oneStream / 4);
        assertThat(ToolRun.of(new XtfsutilMain(), cluster.dirUrl() + "/kept").out()).doesNotContain("UNAVAILABLE");
        try (FileHandle file = client.openVolume("kept").open("/before", OpenFlags.O_RDWR, 0644)) {
            assertThat(file.read(0, 1)).containsExactly(7);
            file.write(1, new byte[] {8});
            assertThat(file.stripeOsdUuids()).containsExactly(carrier);
        }
    }

    // ---- placement of files ----

    // Files of a reserved volume land only on its placement's OSDs; files of a volume without reservation
    // only on best-effort OSDs; a cold volume takes spare capacity on any OSD but no throughput, IOPS or stream.
    @Test
    void filesLandOnTheirVolume_sOsds() throws Exception {
        long oneStream = osd(SEQUENTIAL_A).getLimitThroughputBytesPerSecond();
        assertThat(mkfs("reserved", "--qos", "sequential", "--capacity", "1GiB", "--throughput", rate(oneStream / 4))
                .exitCode()).isZero();
        assertThat(mkfs("plain", "--striping-width", "1").exitCode()).isZero();
        List<String> reservedOsds = placement("reserved").getOsdUuidsList();
        assertThat(stripeOsdsOfNewFiles("reserved", 6)).isSubsetOf(reservedOsds);
        assertThat(stripeOsdsOfNewFiles("plain", 6)).containsOnly(uuid(BEST_EFFORT));

        QosStatus before = status();
        long coldCapacity = osd(RANDOM).getLimitCapacityBytes() / 4;
        ToolRun cold = mkfs("cold", "--qos", "cold", "--capacity", size(coldCapacity));
        assertThat(cold.exitCode()).as(cold.err()).isZero();
        List<String> coldOsds = placement("cold").getOsdUuidsList();
        assertThat(coldOsds).isNotEmpty();
        for (String osdUuid : coldOsds) {
            OsdQosState was = osd(before, osdUuid);
            OsdQosState now = osd(osdUuid);
            assertThat(now.getReservedCapacityBytes()).isGreaterThan(was.getReservedCapacityBytes());
            assertThat(now.getReservedThroughputBytesPerSecond()).isEqualTo(was.getReservedThroughputBytesPerSecond());
            assertThat(now.getReservedIops()).isEqualTo(was.getReservedIops());
            assertThat(now.getSequentialStreams()).as("a cold volume adds no stream").isEqualTo(was.getSequentialStreams());
        }
        assertThat(stripeOsdsOfNewFiles("cold", 4)).isSubsetOf(coldOsds);
    }

    // ---- helpers ----

    private List<String> stripeOsdsOfNewFiles(String volume, int files) throws XtreemFSException {
        List<String> used = new ArrayList<>();
        for (int index = 0; index < files; index++) {
            try (FileHandle file = client.openVolume(volume).open("/f" + index, OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                    0644)) {
                file.write(0, new byte[1000]);
                used.addAll(file.stripeOsdUuids());
            }
        }
        return used;
    }

    private ToolRun mkfs(String volume, String... options) {
        synchronized (volumesMade) {
            if (!volumesMade.contains(volume)) {
                volumesMade.add(volume);
            }
        }
        String[] arguments = Arrays.copyOf(options, options.length + 1);
        arguments[options.length] = cluster.dirUrl() + "/" + volume;
        return ToolRun.of(new MkfsMain(), arguments);
    }

    private static String[] reservationOptions(Reservation reservation) {
        List<String> options = new ArrayList<>(List.of("--qos", Units.displayName(reservation.type()), "--capacity",
                size(reservation.capacityBytes())));
        if (reservation.throughputBytesPerSecond() > 0) {
            options.addAll(List.of("--throughput", rate(reservation.throughputBytesPerSecond())));
        }
        if (reservation.iops() > 0) {
            options.addAll(List.of("--iops", Long.toString(reservation.iops())));
        }
        return options.toArray(new String[0]);
    }

    /** A refusal: exit 1, one line naming the tool and the short dimension, no stack trace. */
    private static void assertRefusedNaming(ToolRun run, String phrase) {
        assertThat(run.exitCode()).as("exit code; out %s err %s", run.out(), run.err()).isEqualTo(1);
        assertThat(run.err()).matches("(?s)(mkfs\\.xtreemfs|xtfsutil): .*").contains(phrase)
                .doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(run.err().strip().lines().count()).as(run.err()).isEqualTo(1);
    }

    private static String size(long bytes) {
        return Units.formatBytes(bytes);
    }

    private static String rate(long bytesPerSecond) {
        return Units.formatBytesPerSecond(bytesPerSecond);
    }

    private static String uuid(int index) {
        return cluster.osdUuids().get(index);
    }

    private static QosStatus status() {
        try {
            return client.qosStatus();
        } catch (XtreemFSException e) {
            throw new AssertionError("MRC_QOS_STATUS failed: " + e.getMessage(), e);
        }
    }

    private static OsdQosState osd(int index) {
        return osd(uuid(index));
    }

    private static OsdQosState osd(String uuid) {
        return osd(status(), uuid);
    }

    private static OsdQosState osd(QosStatus status, String uuid) {
        return status.getOsdsList().stream().filter(osd -> osd.getUuid().equals(uuid)).findFirst()
                .orElseThrow(() -> new AssertionError("the ledger does not list OSD " + uuid));
    }

    private static long ledgerVolumeCount() {
        return status().getOsdsList().stream().mapToLong(OsdQosState::getVolumeIdsCount).sum();
    }

    private static QosPlacement placement(String volume) {
        try {
            return client.openVolume(volume).fileLayout("/").getPlacement();
        } catch (XtreemFSException e) {
            throw new AssertionError("no placement for " + volume + ": " + e.getMessage(), e);
        }
    }

    private static String volumeId(String volume) {
        try {
            return client.openVolume(volume).id();
        } catch (XtreemFSException e) {
            throw new AssertionError("no volume " + volume + ": " + e.getMessage(), e);
        }
    }

    private static List<String> volumeNames() {
        try {
            return client.listVolumes().stream().map(Volume::getName).toList();
        } catch (XtreemFSException e) {
            throw new AssertionError(e);
        }
    }
}
