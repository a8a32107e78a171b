package org.xtreemfs.osd.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.osd.metrics.VolumeAccounting;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.device.WriteBackLevel;
import org.xtreemfs.qos.wfq.BufferedWritePacing;
import org.xtreemfs.qos.wfq.FairPolicy;
import org.xtreemfs.qos.wfq.FifoPolicy;
import org.xtreemfs.qos.wfq.FlowRule;
import org.xtreemfs.qos.wfq.FlowSpec;
import org.xtreemfs.qos.wfq.QueueBounds;
import org.xtreemfs.qos.wfq.QueueingPolicy;
import org.xtreemfs.qos.wfq.ShareRule;

/** The QoS stage with a ManualClock and hand-run wake-ups: nothing here depends on real time. */
class QosStageTest {
    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final ShareRule RANDOM_OSD = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM));

    /** Wake-ups kept in a list; {@link #runDue} runs those due at the manual clock's time. */
    private static final class ManualWakeUps implements WakeUpScheduler {
        private record Pending(long atNanos, Runnable action, boolean[] cancelled) {}

        private final ManualClock clock;
        private final List<Pending> pending = new ArrayList<>();

        ManualWakeUps(ManualClock clock) {
            this.clock = clock;
        }

        @Override
        public synchronized Cancellable schedule(long atNanos, Runnable action) {
            Pending wakeUp = new Pending(atNanos, action, new boolean[1]);
            pending.add(wakeUp);
            return () -> wakeUp.cancelled()[0] = true;
        }

        synchronized List<Long> scheduledNanos() {
            return pending.stream().filter(one -> !one.cancelled()[0]).map(Pending::atNanos).toList();
        }

        /** Runs every wake-up due now; returns how many ran. */
        int runDue() {
            List<Pending> due;
            synchronized (this) {
                due = pending.stream().filter(one -> one.atNanos() <= clock.monotonicNanos()).toList();
                pending.removeAll(due);
            }
            due.stream().filter(one -> !one.cancelled()[0]).forEach(one -> one.action().run());
            return due.size();
        }
    }

    /** A stage with a manual clock, manual wake-ups and a device that only records what it was given. */
    private static final class Harness implements AutoCloseable {
        final ManualClock clock = new ManualClock();
        final ManualWakeUps wakeUps = new ManualWakeUps(clock);
        final List<AuthorizedRequest> released = new ArrayList<>();
        final List<AuthorizedRequest> discarded = new ArrayList<>();
        final VolumeAccounting accounting = accounting();
        final QosStage stage;
        private int completedCount;

        Harness(QueueingPolicy<AuthorizedRequest> policy, int inFlightMax) {
            this(policy, inFlightMax, RANDOM_OSD);
        }

        /** {@code osdRule}: the OSD's ShareRule, which charges requests (as the server passes its policy's rule). */
        Harness(QueueingPolicy<AuthorizedRequest> policy, int inFlightMax, ShareRule osdRule) {
            this(policy, inFlightMax, osdRule, java.util.Optional::empty);
        }

        /** {@code writeBackLevel}: what the device reports of its host write-back before each decision. */
        Harness(QueueingPolicy<AuthorizedRequest> policy, int inFlightMax, ShareRule osdRule,
                java.util.function.Supplier<java.util.Optional<WriteBackLevel>> writeBackLevel) {
            stage = new QosStage(policy, inFlightMax, clock, wakeUps, released::add, discarded::add, osdRule,
                    accounting, writeBackLevel);
        }

        /** Storage answers the oldest released request not yet answered. */
        void completeOldest() {
            stage.completed(released.get(completedCount++));
        }

        @Override
        public void close() {
            stage.close();
        }
    }

    private static VolumeAccounting accounting() {
        return new VolumeAccounting(SECOND_NANOS, 60, 128, 10 * SECOND_NANOS, 16);
    }

    private static AuthorizedRequest request(String fileId) {
        return request(fileId, "volume", VolumeShare.BEST_EFFORT, 0);
    }

    private static AuthorizedRequest request(String fileId, String volumeId, VolumeShare share, int payloadBytes) {
        OsdRequest request = new OsdRequest.ReadObject(null, FileCredentials.getDefaultInstance(), fileId, 0, 0,
                payloadBytes);
        return new AuthorizedRequest(request, volumeId, share, 0, StripeLayout.single(4096));
    }

    private static FairPolicy<AuthorizedRequest> fair(FlowRule rule) {
        return new FairPolicy<>(rule, new QueueBounds(64, 256), 10 * SECOND_NANOS);
    }

    @Test
    void aFullQueueRejectsWithOverloadedNamingTheBound() throws RpcException {
        // Proves the QoS stage never grows past osd.qos.queueCapacity and says so in the error.
        try (Harness harness = new Harness(new FifoPolicy<>(2), 1)) {
            QosStage stage = harness.stage;
            stage.submit(request("v:0"));
            assertThat(harness.released).hasSize(1);
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
    void oneVolumeCannotFillTheFairQueueAndTheErrorNamesTheVolume() throws RpcException {
        // Proves the per-volume bound: a flooding volume is refused while another volume still gets in.
        try (Harness harness = new Harness(new FairPolicy<>(RANDOM_OSD, new QueueBounds(2, 10), SECOND_NANOS), 1)) {
            QosStage stage = harness.stage;
            for (int index = 0; index < 3; index++) {
                stage.submit(request("f:" + index, "flood", VolumeShare.BEST_EFFORT, 4096));
            }
            assertThatThrownBy(() -> stage.submit(request("f:3", "flood", VolumeShare.BEST_EFFORT, 4096)))
                    .isInstanceOfSatisfying(RpcException.class,
                            e -> assertThat(e.errorType()).isEqualTo(ErrorType.OVERLOADED))
                    .hasMessageContaining("2 requests of volume flood (osd.qos.volumeQueueCapacity)");
            stage.submit(request("r:0", "reserved", VolumeShare.random(100), 4096));
            assertThat(stage.queueLength()).isEqualTo(3);
        }
    }

    @Test
    void requestsAreReleasedInFifoOrderOnlyWhileSlotsAreFree() throws RpcException {
        // Proves at most inFlightMax requests are in storage and completions release the next in order.
        try (Harness harness = new Harness(new FifoPolicy<>(10), 2)) {
            QosStage stage = harness.stage;
            for (int i = 0; i < 5; i++) {
                stage.submit(request("v:" + i));
            }
            assertThat(harness.released).hasSize(2);
            assertThat(stage.inFlight()).isEqualTo(2);
            assertThat(stage.queueLength()).isEqualTo(3);
            for (int expectedReleased = 3; expectedReleased <= 5; expectedReleased++) {
                harness.completeOldest();
                assertThat(harness.released).hasSize(expectedReleased);
                assertThat(stage.inFlight()).isEqualTo(2);
            }
            assertThat(harness.released).extracting(AuthorizedRequest::fileId)
                    .containsExactly("v:0", "v:1", "v:2", "v:3", "v:4");
        }
    }

    @Test
    void aRequestRefusedInsideStorageFreesItsSlotAndTheNextOneIsReleased() throws RpcException {
        // Proves a completion reported from inside the storage callback (a full lane refuses the request and
        // the server completes it at once) keeps the in-flight count right and releases the requests behind it.
        List<AuthorizedRequest> released = new ArrayList<>();
        AtomicReference<QosStage> stageReference = new AtomicReference<>();
        ManualClock clock = new ManualClock();
        try (QosStage stage = new QosStage(new FifoPolicy<>(10), 1, clock, new ManualWakeUps(clock), request -> {
            released.add(request);
            if (request.fileId().equals("v:refused")) {
                stageReference.get().completed(request);
            }
        }, discarded -> { }, RANDOM_OSD, accounting())) {
            stageReference.set(stage);
            stage.submit(request("v:0"));
            stage.submit(request("v:refused"));
            stage.submit(request("v:2"));
            assertThat(released).extracting(AuthorizedRequest::fileId).containsExactly("v:0");
            stage.completed(released.get(0));
            assertThat(released).extracting(AuthorizedRequest::fileId).containsExactly("v:0", "v:refused", "v:2");
            assertThat(stage.inFlight()).isEqualTo(1);
            assertThat(stage.queueLength()).isZero();
        }
    }

    @Test
    void aLimitedVolumeIsReleasedByAScheduledWakeUpWithNoOtherEvent() throws RpcException {
        // Proves the stage never stalls a limited volume: with free slots and only not-yet-eligible work, it
        // schedules one wake-up at the time the policy names, and that wake-up alone releases the request.
        FlowRule limitedTo10PerSecond = new FlowRule() {
            @Override
            public FlowSpec flowSpec(String volumeId, VolumeShare share) {
                return FlowSpec.bestEffort(1).withLimit(10);
            }

            @Override
            public long costOf(long payloadBytes) {
                return 1;
            }
        };
        try (Harness harness = new Harness(fair(limitedTo10PerSecond), 4)) {
            QosStage stage = harness.stage;
            for (int index = 0; index < 3; index++) {
                stage.submit(request("l:" + index, "limited", VolumeShare.BEST_EFFORT, 4096));
            }
            assertThat(harness.released).extracting(AuthorizedRequest::fileId).containsExactly("l:0");
            assertThat(harness.wakeUps.scheduledNanos()).containsExactly(SECOND_NANOS / 10);
            harness.clock.advance(Duration.ofMillis(99));
            assertThat(harness.wakeUps.runDue()).isZero();
            harness.clock.advance(Duration.ofMillis(1));
            assertThat(harness.wakeUps.runDue()).isEqualTo(1);
            assertThat(harness.released).extracting(AuthorizedRequest::fileId).containsExactly("l:0", "l:1");
            assertThat(harness.wakeUps.scheduledNanos()).containsExactly(2 * SECOND_NANOS / 10);
            harness.clock.advance(Duration.ofMillis(100));
            harness.wakeUps.runDue();
            assertThat(harness.released).hasSize(3);
            assertThat(harness.wakeUps.scheduledNanos()).as("nothing waits, nothing scheduled").isEmpty();
            assertThat(stage.wakeUpCount()).isEqualTo(2);
            assertThat(stage.inFlight()).isEqualTo(3);
        }
    }

    @Test
    void reservationsHoldInEverySecondThroughACapacityDropWhileABestEffortVolumeFloods() throws RpcException {
        // Proves, through the stage, a reserved volume (300 IOPS share on a random OSD) gets >= 300 requests in
        // every 1 s window while the device falls from 1000 to 400 requests/s, next to a volume keeping 60
        // requests queued; and that with FIFO the same load leaves it far below.
        Map<Long, Long> fair = reservedPerSecond(fair(RANDOM_OSD), accounted -> {
            // The accounting sees the same: every 1-s window with demand met the reservation.
            assertThat(accounted.reservationCostPerSecond()).isEqualTo(300);
            assertThat(accounted.windowsWithDemand()).isEqualTo(20);
            assertThat(accounted.attainment()).isEqualTo(1.0);
            assertThat(accounted.achievedRequestsPerWindow()).isGreaterThanOrEqualTo(300);
            assertThat(accounted.queueDepthRequests()).isBetween(1, 4);
        });
        for (long second = 1; second < 20; second++) {
            assertThat(fair.getOrDefault(second, 0L)).as("reserved requests in second %d", second)
                    .isGreaterThanOrEqualTo(300);
        }
        Map<Long, Long> fifo = reservedPerSecond(new FifoPolicy<>(256), accounted -> {
            // Under FIFO the reserved volume gets about 4/64 of the device: no window meets 90 % of 300.
            assertThat(accounted.windowsWithDemand()).isEqualTo(20);
            assertThat(accounted.windowsMet()).isZero();
            assertThat(accounted.attainment()).isZero();
        });
        assertThat(fifo.getOrDefault(15L, 0L)).as("FIFO after the drop").isLessThan(150);
    }

    /**
     * Device of 1 slot at 1000 requests/s, 400/s from t = 10 s; "reserved" keeps 4 queued, "flood" 60. Hands
     * the accounting's figures of "reserved" at t = 20 s to {@code checkAccounting}.
     */
    private static Map<Long, Long> reservedPerSecond(QueueingPolicy<AuthorizedRequest> policy,
            Consumer<VolumeAccounting.VolumeSnapshot> checkAccounting) throws RpcException {
        Map<Long, Long> reservedPerSecond = new HashMap<>();
        try (Harness harness = new Harness(policy, 1)) {
            Map<String, Integer> waiting = new HashMap<>(Map.of("reserved", 0, "flood", 0));
            int sequence = 0;
            while (harness.clock.monotonicNanos() < 20 * SECOND_NANOS) {
                for (String volume : List.of("flood", "reserved")) {
                    int depth = volume.equals("flood") ? 60 : 4;
                    VolumeShare share = volume.equals("flood") ? VolumeShare.BEST_EFFORT : VolumeShare.random(300);
                    while (waiting.get(volume) < depth) {
                        harness.stage.submit(request(volume + ":" + sequence++, volume, share, 4096));
                        waiting.merge(volume, 1, Integer::sum);
                    }
                }
                assertThat(harness.released).hasSize(1);
                AuthorizedRequest served = harness.released.remove(0);
                waiting.merge(served.volumeId(), -1, Integer::sum);
                if (served.volumeId().equals("reserved")) {
                    reservedPerSecond.merge(harness.clock.monotonicNanos() / SECOND_NANOS, 1L, Long::sum);
                }
                long capacity = harness.clock.monotonicNanos() < 10 * SECOND_NANOS ? 1000 : 400;
                harness.clock.advance(Duration.ofNanos(SECOND_NANOS / capacity));
                harness.stage.completed(served);
            }
            checkAccounting.accept(harness.accounting.snapshot(harness.clock.monotonicNanos()).stream()
                    .filter(volume -> volume.volumeId().equals("reserved")).findFirst().orElseThrow());
        }
        return reservedPerSecond;
    }

    @Test
    void onASequentialOsdARequestThatBreaksItsStreamIsChargedThePositioningItCosts() throws RpcException {
        // Proves the positioning charge: on a sequential OSD (bytes; positioning = what the disk streams in one
        // random I/O's time, ShareRule.bytesPerRandomIo) two always backlogged best-effort volumes of equal weight
        // get equal charged bytes, so a stream of 128 KiB requests that continue each other gets about
        // (4 KiB + positioning) / 128 KiB times as many requests as a writer of scattered 4 KiB requests. Charged
        // by payload alone, the 4 KiB writer would get 32 requests for each 128 KiB one and the disk's time.
        ShareRule sequentialOsd = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        long positioningBytes = ShareRule.bytesPerRandomIo(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        assertThat(positioningBytes).isGreaterThan(512 * 1024);
        Map<String, Integer> served = new HashMap<>(Map.of("stream", 0, "scattered", 0));
        try (Harness harness = new Harness(fair(sequentialOsd), 1, sequentialOsd)) {
            Map<String, Integer> waiting = new HashMap<>(Map.of("stream", 0, "scattered", 0));
            long streamObject = 0;
            long scatteredObject = 7;
            for (int release = 0; release < 4000; release++) {
                while (waiting.get("stream") < 8) {
                    harness.stage.submit(objectRequest("stream-file", "stream", streamObject++, 128 * 1024));
                    waiting.merge("stream", 1, Integer::sum);
                }
                while (waiting.get("scattered") < 8) {
                    scatteredObject = (scatteredObject * 7919 + 13) % 100_003;  // never the previous end
                    harness.stage.submit(objectRequest("scattered-file", "scattered", scatteredObject, 4096));
                    waiting.merge("scattered", 1, Integer::sum);
                }
                AuthorizedRequest next = harness.released.remove(0);
                waiting.merge(next.volumeId(), -1, Integer::sum);
                served.merge(next.volumeId(), 1, Integer::sum);
                harness.stage.completed(next);
            }
        }
        double expected = (4096.0 + positioningBytes) / (128 * 1024);
        double measured = (double) served.get("stream") / served.get("scattered");
        assertThat(measured).as("stream %d against scattered %d", served.get("stream"), served.get("scattered"))
                .isBetween(expected * 0.95, expected * 1.05);
    }

    @Test
    void eachVolumesObjectAccessesAreCountedChargedAPositioningAndOutOfOrder() throws RpcException {
        // Proves the continuity counters: 16 reads of 128 KiB objects of one file submitted permuted within the
        // window (as 16 in flight through a mount arrive), then 4 scattered far apart, then a request for the size.
        // The accounting counts every object access, the permuted ones not at the previous end as out of order,
        // and each one charged a positioning (its cost above its bytes: the permuted stream's first request and
        // the 4 jumps only), in the totals and in the window.
        ShareRule sequentialOsd = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        long[] permuted = {3, 1, 0, 2, 4, 5, 7, 6, 8, 9, 12, 10, 11, 13, 15, 14};
        int inOrder = 0;
        for (int index = 1; index < permuted.length; index++) {
            inOrder += permuted[index] == permuted[index - 1] + 1 ? 1 : 0;
        }
        try (Harness harness = new Harness(new FifoPolicy<>(64), 64, sequentialOsd)) {
            for (long object : permuted) {
                harness.stage.submit(objectRequest("file", "volume", object, 128 * 1024));
            }
            for (long object : new long[] {5_000, 90, 70_000, 30}) {
                harness.stage.submit(objectRequest("file", "volume", object, 128 * 1024));
            }
            harness.stage.submit(new AuthorizedRequest(new OsdRequest.GetFileSize(null,
                    FileCredentials.getDefaultInstance(), "file"), "volume", VolumeShare.BEST_EFFORT, 0,
                    StripeLayout.single(128 * 1024)));  // not an object access: not counted
            VolumeAccounting.VolumeSnapshot volume = harness.accounting.snapshot(0).get(0);
            assertThat(volume.objectAccessRequestsTotal()).isEqualTo(permuted.length + 4);
            int outOfOrder = permuted.length - 1 - inOrder;
            assertThat(volume.outOfOrderRequestsTotal()).isEqualTo(outOfOrder);
            assertThat(volume.positioningChargedRequestsTotal()).isEqualTo(1 + 4);
            harness.clock.advance(Duration.ofSeconds(1));
            List<VolumeAccounting.Window> windows = harness.accounting.windows("volume", harness.clock.monotonicNanos());
            assertThat(windows).hasSize(1);
            assertThat(windows.get(0).outOfOrderRequests()).isEqualTo(outOfOrder);
            assertThat(windows.get(0).positioningChargedRequests()).isEqualTo(1 + 4);
        }
    }

    @Test
    void unsyncedWritesLeaveAtThePacingRateWhileSyncedWritesAndReadsPassAtOnce() throws RpcException {
        // Proves the stage paces what the host's write-back would take at memory speed: storage acknowledges
        // every request at once (as the write-back does while it has room), yet a flood of unsynced 128 KiB
        // writes (one stream, so charged their payload after the first) leaves the stage at the pacing rate,
        // 1 MiB/s = 8 a second, plus the 100 ms burst and one overdraw, while a synced write and a read submitted amid it are released
        // at once. Without pacing all 400 would leave in the first instant.
        ShareRule sequentialOsd = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        FairPolicy<AuthorizedRequest> policy = new FairPolicy<>(sequentialOsd, new QueueBounds(1000, 1000),
                10 * SECOND_NANOS, new BufferedWritePacing(1 << 20, 100_000_000L));
        try (Harness harness = new Harness(policy, 2, sequentialOsd)) {
            for (int object = 0; object < 400; object++) {
                harness.stage.submit(writeRequest("flood-file", "flood", object, false));
            }
            int completed = 0;
            for (int tick = 1; tick <= 1000; tick++) { // 10 s in 10 ms steps
                while (completed < harness.released.size()) {
                    harness.completeOldest();
                    completed++;
                }
                if (tick == 500) {
                    int before = harness.released.size();
                    harness.stage.submit(writeRequest("synced-file", "other", 0, true));
                    harness.stage.submit(objectRequest("read-file", "other", 0, 4096));
                    assertThat(harness.released.subList(before, harness.released.size()))
                            .extracting(AuthorizedRequest::fileId).as("released at once")
                            .containsExactly("synced-file", "read-file");
                }
                harness.clock.advance(Duration.ofMillis(10));
                harness.wakeUps.runDue();
            }
            long floodReleased = harness.released.stream().filter(r -> r.fileId().equals("flood-file")).count();
            // 10 s at 1 MiB/s plus the 100 ms burst, less the first write's positioning charge (it starts the
            // stream), in writes of 128 KiB; up to one more for the overdraw and the last tick
            double expected = (10.1 * (1 << 20) - ShareRule.bytesPerRandomIo(
                    OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL))) / (128 * 1024);
            assertThat((double) floodReleased).isBetween(expected - 1, expected + 2);
            assertThat(harness.stage.wakeUpCount()).as("the paced writes were released by wake-ups").isPositive();
        }
    }

    @Test
    void whileTheDevicesWriteBackIsBelowItsBackgroundLevelUnsyncedWritesAreNotHeldBack() throws RpcException {
        // Proves the stage tells the policy the device's write-back level before each decision: with the level
        // reported below the background threshold the flood of the test above leaves at once (nothing is
        // flushing, so holding it would leave the disk idle); reported at the threshold, the pacing holds the
        // rest to its rate again (the burst's worth, then one write per 128 ms at 1 MiB/s).
        ShareRule sequentialOsd = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        FairPolicy<AuthorizedRequest> policy = new FairPolicy<>(sequentialOsd, new QueueBounds(1000, 1000),
                10 * SECOND_NANOS, new BufferedWritePacing(1 << 20, 100_000_000L));
        long[] dirtyBytes = {0};
        long backgroundBytes = 32L << 20;
        try (Harness harness = new Harness(policy, 2, sequentialOsd,
                () -> java.util.Optional.of(new WriteBackLevel(dirtyBytes[0], backgroundBytes)))) {
            for (int object = 0; object < 200; object++) {
                harness.stage.submit(writeRequest("flood-file", "flood", object, false));
            }
            int completed = 0;
            while (completed < harness.released.size()) {
                harness.completeOldest(); // storage acknowledges from memory at once
                completed++;
            }
            assertThat(harness.released).as("released while the write-back is below its level").hasSize(200);
            dirtyBytes[0] = backgroundBytes;
            for (int object = 200; object < 400; object++) {
                harness.stage.submit(writeRequest("flood-file", "flood", object, false));
            }
            for (int tick = 1; tick <= 100; tick++) { // 1 s in 10 ms steps
                while (completed < harness.released.size()) {
                    harness.completeOldest();
                    completed++;
                }
                harness.clock.advance(Duration.ofMillis(10));
                harness.wakeUps.runDue();
            }
            long pacedReleased = harness.released.size() - 200;
            assertThat(pacedReleased).as("at the level: paced, at most 1 s at 1 MiB/s plus the burst in 128 KiB")
                    .isBetween(7L, 10L);
        }
    }

    @Test
    void aSwitchedPolicyTakesTheWaitingRequestsInSubmissionOrderAndReleasesByItsOwnRule() throws RpcException {
        // Proves the run-time switch (POST /qos/policy): nothing waiting is lost or duplicated, requests in storage
        // still complete, and after switching from FIFO to the fair policy the next release follows the fair
        // order (volume b, one request behind a's five, goes second), after switching back FIFO's.
        try (Harness harness = new Harness(new FifoPolicy<>(100), 1)) {
            QosStage stage = harness.stage;
            for (int index = 0; index < 5; index++) {
                stage.submit(request("a:" + index, "a", VolumeShare.BEST_EFFORT, 4096));
            }
            stage.submit(request("b:0", "b", VolumeShare.BEST_EFFORT, 4096));
            assertThat(harness.released).extracting(AuthorizedRequest::fileId).containsExactly("a:0");
            assertThat(stage.switchPolicy(fair(RANDOM_OSD))).as("moved").isEqualTo(5);
            assertThat(stage.queueLength()).isEqualTo(5);
            assertThat(stage.inFlight()).isEqualTo(1);
            harness.completeOldest();
            harness.completeOldest();
            assertThat(harness.released).extracting(AuthorizedRequest::fileId)
                    .as("fair: a and b alternate").containsExactly("a:0", "a:1", "b:0");
            assertThat(stage.switchPolicy(new FifoPolicy<>(100))).isEqualTo(3);
            while (harness.released.size() < 6) {
                harness.completeOldest();
            }
            harness.completeOldest();
            assertThat(harness.released).extracting(AuthorizedRequest::fileId)
                    .containsExactly("a:0", "a:1", "b:0", "a:2", "a:3", "a:4");
            assertThat(stage.queueLength()).isZero();
            assertThat(stage.inFlight()).isZero();
        }
    }

    /** A write of 128 KiB at the start of object {@code objectNumber} of a file of 128 KiB objects. */
    private static AuthorizedRequest writeRequest(String fileId, String volumeId, long objectNumber, boolean sync) {
        OsdRequest request = new OsdRequest.WriteObject(null, FileCredentials.getDefaultInstance(), fileId,
                objectNumber, 0, sync, Unpooled.wrappedBuffer(new byte[128 * 1024]));
        return new AuthorizedRequest(request, volumeId, VolumeShare.BEST_EFFORT, 0, StripeLayout.single(128 * 1024));
    }

    /** A read of {@code payloadBytes} at the start of object {@code objectNumber} of a file of 128 KiB objects. */
    private static AuthorizedRequest objectRequest(String fileId, String volumeId, long objectNumber, int payloadBytes) {
        OsdRequest request = new OsdRequest.ReadObject(null, FileCredentials.getDefaultInstance(), fileId, objectNumber,
                0, payloadBytes);
        return new AuthorizedRequest(request, volumeId, VolumeShare.BEST_EFFORT, 0, StripeLayout.single(128 * 1024));
    }

    @Test
    void aLimitedVolumeStaysAtItsLimitWhileTheDiskIsMostlyIdle() throws RpcException {
        // Proves the limit from the capability's share is a cap, not a share of contention: alone on a device of
        // 1000 requests/s and always backlogged, a volume reserving 100 IOPS with a limit of 200 gets 200 in
        // every second and the device idles the other 80 % of the time.
        VolumeShare limited = new VolumeShare(ReservationType.RANDOM, 0, 100, 1, 0, 200);
        Map<String, Map<Long, Long>> served = serveBacklogged(Map.of("capped", limited), 1000, 10);
        for (long second = 0; second < 10; second++) {
            assertThat(served.get("capped").getOrDefault(second, 0L)).as("requests in second %d", second)
                    .isBetween(199L, 201L);
        }
    }

    @Test
    void bestEffortVolumesWithWeightsOneAndThreeSplitWhatTheReservationLeavesOneToThree() throws RpcException {
        // Proves the capability's weight reaches the fair queue: next to a reserved volume (300 IOPS share, weight
        // 1), two always backlogged best-effort volumes of weight 1 and 3 share the rest 1:3, and every one of
        // the three gets its weight's part of the spare capacity on top of the reservation.
        Map<String, Map<Long, Long>> served = serveBacklogged(Map.of(
                "light", new VolumeShare(ReservationType.BEST_EFFORT, 0, 0, 1, 0, 0),
                "heavy", new VolumeShare(ReservationType.BEST_EFFORT, 0, 0, 3, 0, 0),
                "reserved", VolumeShare.random(300)), 1000, 20);
        long light = total(served.get("light"));
        long heavy = total(served.get("heavy"));
        long reserved = total(served.get("reserved"));
        assertThat((double) heavy / light).as("heavy %d against light %d", heavy, light).isBetween(2.9, 3.1);
        // 20 s at 1000/s: 6000 reserved, the other 14000 by weight 1:1:3 (2800, 2800, 8400) on top.
        assertThat(light + heavy + reserved).isBetween(19_990L, 20_000L);
        assertThat(reserved).isBetween(8_600L, 9_000L);
        assertThat(light).isBetween(2_700L, 2_900L);
    }

    private static long total(Map<Long, Long> perSecond) {
        return perSecond.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Runs the fair stage on a random OSD (ShareRule: one cost unit per 4 KiB request) in front of a device of
     * one slot serving {@code deviceRequestsPerSecond}, every volume kept 8 requests deep, for {@code seconds};
     * when nothing is released the clock jumps to the stage's next wake-up. Returns per volume the requests
     * started in each second.
     */
    private static Map<String, Map<Long, Long>> serveBacklogged(Map<String, VolumeShare> shares,
            long deviceRequestsPerSecond, long seconds) throws RpcException {
        Map<String, Map<Long, Long>> served = new HashMap<>();
        Map<String, Integer> waiting = new HashMap<>();
        shares.keySet().forEach(volume -> {
            served.put(volume, new HashMap<>());
            waiting.put(volume, 0);
        });
        try (Harness harness = new Harness(fair(RANDOM_OSD), 1)) {
            int sequence = 0;
            while (harness.clock.monotonicNanos() < seconds * SECOND_NANOS) {
                for (Map.Entry<String, VolumeShare> volume : new TreeMap<>(shares).entrySet()) {
                    while (waiting.get(volume.getKey()) < 8) {
                        harness.stage.submit(request(volume.getKey() + ":" + sequence++, volume.getKey(),
                                volume.getValue(), 4096));
                        waiting.merge(volume.getKey(), 1, Integer::sum);
                    }
                }
                if (harness.released.isEmpty()) {
                    List<Long> wakeUps = harness.wakeUps.scheduledNanos();
                    assertThat(wakeUps).as("work waits, so a wake-up is scheduled").isNotEmpty();
                    long next = wakeUps.stream().mapToLong(Long::longValue).min().orElseThrow();
                    harness.clock.advance(Duration.ofNanos(Math.max(0, next - harness.clock.monotonicNanos())));
                    harness.wakeUps.runDue();
                    continue;
                }
                AuthorizedRequest request = harness.released.remove(0);
                waiting.merge(request.volumeId(), -1, Integer::sum);
                served.get(request.volumeId()).merge(harness.clock.monotonicNanos() / SECOND_NANOS, 1L, Long::sum);
                harness.clock.advance(Duration.ofNanos(SECOND_NANOS / deviceRequestsPerSecond));
                harness.stage.completed(request);
            }
        }
        return served;
    }

    @Test
    void coldRequestsRunOnlyWhenNothingElseIsEligible() throws RpcException {
        // Proves cold work waits behind every best-effort or reserved request and then uses the idle device.
        try (Harness harness = new Harness(fair(RANDOM_OSD), 1)) {
            QosStage stage = harness.stage;
            stage.submit(request("b:0", "hot", VolumeShare.BEST_EFFORT, 4096));
            stage.submit(request("c:0", "archive", VolumeShare.cold(), 4096));
            stage.submit(request("c:1", "archive", VolumeShare.cold(), 4096));
            stage.submit(request("b:1", "hot", VolumeShare.BEST_EFFORT, 4096));
            stage.submit(request("r:0", "db", VolumeShare.random(50), 4096));
            for (int index = 0; index < 4; index++) {
                harness.completeOldest();
            }
            assertThat(harness.released).extracting(AuthorizedRequest::fileId)
                    .containsExactly("b:0", "r:0", "b:1", "c:0", "c:1");
        }
    }

    @Test
    void anUnknownVolumeIsServedBestEffortAndSharesEquallyWithAnotherBestEffortVolume() throws RpcException {
        // Proves a volume whose capability carries no share is never refused and gets an equal share.
        try (Harness harness = new Harness(fair(RANDOM_OSD), 1)) {
            QosStage stage = harness.stage;
            stage.submit(request("k:0", "known", VolumeShare.BEST_EFFORT, 4096));
            for (int index = 1; index <= 4; index++) {
                stage.submit(request("k:" + index, "known", VolumeShare.BEST_EFFORT, 4096));
                stage.submit(new AuthorizedRequest(new OsdRequest.ReadObject(null, FileCredentials.getDefaultInstance(),
                        "u:" + index, 0, 0, 4096), "never-seen", 0, StripeLayout.single(4096)));
            }
            for (int index = 0; index < 8; index++) {
                harness.completeOldest();
            }
            assertThat(harness.released).extracting(AuthorizedRequest::fileId)
                    .containsExactly("k:0", "k:1", "u:1", "k:2", "u:2", "k:3", "u:3", "k:4", "u:4");
        }
    }

    @Test
    void closingDiscardsEveryWaitingRequestAndCancelsTheWakeUp() throws RpcException {
        // Proves shutdown fails waiting calls instead of dropping them silently.
        try (Harness harness = new Harness(fair(RANDOM_OSD), 1)) {
            for (int index = 0; index < 3; index++) {
                harness.stage.submit(request("v:" + index, "v", VolumeShare.BEST_EFFORT, 4096));
            }
            harness.stage.close();
            assertThat(harness.discarded).extracting(AuthorizedRequest::fileId).containsExactlyInAnyOrder("v:1", "v:2");
            assertThatThrownBy(() -> harness.stage.submit(request("late"))).hasMessageContaining("shutting down");
        }
    }

    @Test
    void aWaitingRequestWhoseCallCannotBeFailedAtCloseLeavesTheOthersDiscarded() throws RpcException {
        // Proves close hands over every waiting request even when failing one throws (its connection's event loop
        // already shut down: seen in OsdFairQueueTest's output as "closing QosStage failed").
        ManualClock clock = new ManualClock();
        List<AuthorizedRequest> discarded = new ArrayList<>();
        QosStage stage = new QosStage(fair(RANDOM_OSD), 1, clock, new ManualWakeUps(clock), request -> {}, waiting -> {
            discarded.add(waiting);
            if (discarded.size() == 1) {
                throw new IllegalStateException("event executor terminated");
            }
        }, RANDOM_OSD, accounting());
        for (int index = 0; index < 4; index++) {
            stage.submit(request("v:" + index, "v", VolumeShare.BEST_EFFORT, 4096));
        }
        stage.close();
        assertThat(discarded).extracting(AuthorizedRequest::fileId).containsExactlyInAnyOrder("v:1", "v:2", "v:3");
    }
}
