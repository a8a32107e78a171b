package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.qos.device.DeviceLayout;
import org.xtreemfs.qos.device.HddModel;
import org.xtreemfs.qos.device.HddState;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.device.ServiceResult;
import org.xtreemfs.qos.device.SsdModel;
import org.xtreemfs.qos.device.SsdState;
import org.xtreemfs.qos.device.WriteBackCache;
import org.xtreemfs.qos.device.WriteBackState;

class EmulatedDeviceTest {
    private static final int OBJECT = 128 * 1024;
    private static final HddModel HDD = HddModel.desktop7200Rpm();

    /** A waiter that moves the manual clock to the awaited time, recording what it was asked. */
    private static final class MovingWaiter implements EmulatedDevice.Waiter {
        final ManualClock clock;
        final List<Long> awaited = new ArrayList<>();

        MovingWaiter(ManualClock clock) {
            this.clock = clock;
        }

        @Override
        public void awaitNanos(long monotonicNanos) {
            awaited.add(monotonicNanos);
            long stepNanos = monotonicNanos - clock.monotonicNanos();
            if (stepNanos > 0) {
                clock.advance(java.time.Duration.ofNanos(stepNanos));
            }
        }
    }

    @Test
    void eachAccessIsServedByTheModelInArrivalOrderAtTheLayoutsOffset() {
        // Proves the emulation is the model: the same requests, offsets and start times give the same completions.
        ManualClock clock = new ManualClock();
        MovingWaiter waiter = new MovingWaiter(clock);
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, clock, waiter);
        HddState expected = HDD.initialState();
        for (long object = 0; object < 8; object++) {
            long completion = device.begin("file-a", object, OBJECT, 0, OBJECT, IoKind.WRITE);
            IoRequest request = DeviceLayout.request(IoKind.WRITE, "file-a", object, OBJECT, 0, OBJECT,
                    HDD.capacityBytes());
            ServiceResult<HddState> result = HDD.serve(request, expected,
                    Math.max(clock.monotonicNanos(), expected.nextStartNanos()));
            expected = result.nextState();
            assertThat(completion).isEqualTo(result.completionNanos());
            device.end(completion);
            assertThat(clock.monotonicNanos()).isEqualTo(completion);
        }
        assertThat(device.accesses()).isEqualTo(8);
    }

    /** How long {@code objects} back-to-back 128 KiB writes of one file take on the device, from object {@code first}. */
    private static long streamNanos(EmulatedDevice<HddState> device, ManualClock clock, long first, int objects) {
        long before = clock.monotonicNanos();
        for (long object = first; object < first + objects; object++) {
            device.end(device.begin("file-a", object, OBJECT, 0, OBJECT, IoKind.WRITE));
        }
        return clock.monotonicNanos() - before;
    }

    @Test
    void aSpeedFractionStretchesEveryLaterAccessAndOneRestoresTheModel() {
        // Proves the capacity-drop knob: at 2/3 of the speed the same stream takes 1.5 times as long (a third
        // less throughput), and speed 1 gives the model's times again.
        ManualClock clock = new ManualClock();
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, clock, new MovingWaiter(clock));
        device.end(device.begin("file-a", 0, OBJECT, 0, OBJECT, IoKind.WRITE)); // the first access seeks
        long fullSpeedNanos = streamNanos(device, clock, 1, 32);

        device.setSpeedFraction(2.0 / 3);
        long slowNanos = streamNanos(device, clock, 33, 32);
        device.setSpeedFraction(1);
        long restoredNanos = streamNanos(device, clock, 65, 32);

        assertThat(device.speedFraction()).isEqualTo(1);
        assertThat((double) slowNanos / fullSpeedNanos).isBetween(1.49, 1.51);
        assertThat((double) restoredNanos / fullSpeedNanos).isBetween(0.99, 1.01);
    }

    @Test
    void speedFractionsOutsideZeroToOneAreRefusedNamingTheValue() {
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, new ManualClock(), new MovingWaiter(new ManualClock()));
        for (double bad : new double[] {0, -0.5, 1.5, Double.NaN}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> device.setSpeedFraction(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Double.toString(bad));
        }
        assertThat(device.speedFraction()).isEqualTo(1);
    }

    @Test
    void backToBackObjectsOfOneFileStreamAndAnotherFileSeeks() {
        // Proves the layout makes a file sequential on the device and puts another file a seek away.
        ManualClock clock = new ManualClock();
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, clock, new MovingWaiter(clock));
        device.end(device.begin("file-a", 0, OBJECT, 0, OBJECT, IoKind.WRITE));
        long before = clock.monotonicNanos();
        device.end(device.begin("file-a", 1, OBJECT, 0, OBJECT, IoKind.WRITE));
        long sequentialNanos = clock.monotonicNanos() - before;
        before = clock.monotonicNanos();
        device.end(device.begin("file-b", 0, OBJECT, 0, OBJECT, IoKind.WRITE));
        long seekingNanos = clock.monotonicNanos() - before;
        assertThat(sequentialNanos).isLessThan(1_500_000); // 128 KiB at 100..210 MB/s plus the command overhead
        assertThat(seekingNanos).isGreaterThan(sequentialNanos + HDD.trackToTrackSeekNanos());
    }

    @Test
    void aRequestArrivingWhileTheDeviceIsBusyStartsWhenItIsFree() {
        // Proves max(now, next start): a second file's access queues behind the first, the waits happen outside.
        ManualClock clock = new ManualClock();
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, clock, new MovingWaiter(clock));
        long first = device.begin("file-a", 0, OBJECT, 0, OBJECT, IoKind.READ);
        long second = device.begin("file-b", 0, OBJECT, 0, OBJECT, IoKind.READ);
        assertThat(first).isGreaterThan(clock.monotonicNanos());
        assertThat(second).isGreaterThan(first);
        assertThat(device.busyUntilNanos()).isGreaterThanOrEqualTo(second);
    }

    @Test
    void anSsdServesSeveralAccessesAtOnce() {
        // Proves the state is only advanced under the lock: 8 small reads on 8 channels finish together.
        ManualClock clock = new ManualClock();
        SsdModel ssd = SsdModel.sata();
        EmulatedDevice<SsdState> device = new EmulatedDevice<>(ssd, clock, new MovingWaiter(clock));
        List<Long> completions = new ArrayList<>();
        for (int object = 0; object < ssd.channelCount(); object++) {
            completions.add(device.begin("file-" + object, 0, OBJECT, 0, 4096, IoKind.READ));
        }
        assertThat(completions).containsOnly(completions.get(0));
        assertThat(device.begin("file-x", 0, OBJECT, 0, 4096, IoKind.READ)).isGreaterThan(completions.get(0));
    }

    @Test
    void theHostsTurnaroundIsForgivenToASequentialContinuationOnly() {
        // Proves the documented tolerance: a continuation 1 ms late starts as if on time; 30 ms late it does not.
        ManualClock clock = new ManualClock();
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, clock, new MovingWaiter(clock));
        device.end(device.begin("file-a", 0, OBJECT, 0, OBJECT, IoKind.WRITE));
        long onTime = clock.monotonicNanos();
        clock.advanceMillis(1);
        long late = device.begin("file-a", 1, OBJECT, 0, OBJECT, IoKind.WRITE);
        device.end(late);
        assertThat(late - onTime).isLessThan(1_500_000); // served from the previous completion, no rotation lost
        clock.advanceMillis(30);
        long tooLate = device.begin("file-a", 2, OBJECT, 0, OBJECT, IoKind.WRITE);
        assertThat(tooLate).isGreaterThan(clock.monotonicNanos());
        clock.advanceMillis(30);
        long otherFile = device.begin("file-c", 0, OBJECT, 0, OBJECT, IoKind.WRITE);
        assertThat(otherFile).isGreaterThan(clock.monotonicNanos() + HDD.trackToTrackSeekNanos());
    }

    /**
     * The completion of a write of object {@code second} of file-a arriving {@code lateNanos} after the write of
     * object 0 completed (writes: the HDD model without write-back writes through, with no read-ahead keeping the
     * head busy after the first access).
     */
    private static long completionAfter(long second, long lateNanos) {
        ManualClock clock = new ManualClock();
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, clock, new MovingWaiter(clock));
        device.end(device.begin("file-a", 0, OBJECT, 0, OBJECT, IoKind.WRITE));
        clock.advance(java.time.Duration.ofNanos(lateNanos));
        return device.begin("file-a", second, OBJECT, 0, OBJECT, IoKind.WRITE);
    }

    @Test
    void theTurnaroundIsForgivenToAnAccessPermutedWithinItsStreamsWindowAsTheQosStageChargesIt() {
        // Proves the device and the QoS stage share one continuity rule (StreamContinuity): an access two objects
        // ahead (its predecessor still in flight) or one behind arriving 1 ms late is served exactly as if it had
        // arrived at the previous completion. (That another file, or a continuation too late, is not forgiven:
        // theHostsTurnaroundIsForgivenToASequentialContinuationOnly; a jump is POSITIONED: StreamContinuityTest.)
        assertThat(completionAfter(2, 1_000_000)).isEqualTo(completionAfter(2, 0));
        assertThat(completionAfter(1, 1_000_000)).isEqualTo(completionAfter(1, 0));
    }

    @Test
    void atTheDirtyLimitABufferedWriteWaitsForOneWritebackNeverForABatch() {
        // Tests issue 9's hypothesis that a buffered write meeting the dirty limit waits for a flush batch and so
        // holds its volume up for about a second: the QoS benchmark's sequential OSD as its QoS stage drives it
        // (DeviceEmulation.HDD7200; osd.qos.inFlightMax 2 on an emulated HDD, so two writes in storage at a time,
        // the next released as one completes, here in turn over its five writer files: seq-a, seq-b and
        // be-seq's three jobs), 128 KiB each, 60 s with the write-back at its limit, the last 30 s at 2/3 speed
        // (the benchmark's capacity drop). A write waits for room only until the next writeback completes (one
        // 128 KiB write to the media, a seek at worst), so no write waits anywhere near a second, and no file
        // goes long without a completion.
        ManualClock clock = new ManualClock();
        EmulatedDevice<?> device = new EmulatedDevice<>(DeviceEmulation.HDD7200.model(), clock, new MovingWaiter(clock));
        String[] files = {"seq-a.0.0", "seq-b.0.0", "be-seq.0.0", "be-seq.1.0", "be-seq.2.0"};
        long second = 1_000_000_000L;
        long[] slotFreeNanos = new long[2];
        long[] nextObject = new long[files.length];
        long[] lastCompletionNanos = new long[files.length];
        long longestWaitNanos = 0;
        long longestGapNanos = 0;
        long dirtyMinBytes = Long.MAX_VALUE;
        for (int release = 0; ; release++) {
            int slot = slotFreeNanos[0] <= slotFreeNanos[1] ? 0 : 1;
            long releaseNanos = slotFreeNanos[slot];
            if (releaseNanos >= 60 * second) {
                break;
            }
            if (releaseNanos >= 30 * second && device.speedFraction() == 1) {
                device.setSpeedFraction(2.0 / 3);
            }
            int file = release % files.length;
            clock.advance(java.time.Duration.ofNanos(Math.max(0, releaseNanos - clock.monotonicNanos())));
            long completion = device.begin(files[file], nextObject[file]++ % 8192, OBJECT, 0, OBJECT, IoKind.WRITE,
                    false);
            if (releaseNanos >= 10 * second) {
                longestWaitNanos = Math.max(longestWaitNanos, completion - releaseNanos);
                longestGapNanos = Math.max(longestGapNanos, completion - lastCompletionNanos[file]);
                dirtyMinBytes = Math.min(dirtyMinBytes, device.writeBackLevel().orElseThrow().dirtyBytes());
            }
            lastCompletionNanos[file] = completion;
            slotFreeNanos[slot] = completion;
        }
        long writtenMib = java.util.Arrays.stream(nextObject).sum() * OBJECT >> 20;
        System.out.printf("dirty limit experiment: %d MiB written in 60 s, longest write %.1f ms, longest file gap %.1f ms,"
                + " dirty at least %d MiB%n", writtenMib, longestWaitNanos / 1e6, longestGapNanos / 1e6, dirtyMinBytes >> 20);
        assertThat(dirtyMinBytes).as("the write-back stays near its 64 MiB limit").isGreaterThan(48L << 20);
        assertThat(longestWaitNanos).as("longest wait of a write, %d MiB written", writtenMib)
                .isLessThan(second / 10);
        assertThat(longestGapNanos).as("longest gap between a file's completions").isLessThan(second / 4);
    }

    @Test
    void withWriteBackUnsyncedWritesReturnFromMemoryAndSyncedWritesAndFsyncWaitForTheMedia(@TempDir Path folder)
            throws Exception {
        // Proves the store passes its sync flag and fsync to the model: the emulated HDD (write-back in front)
        // takes an unsynced write in the time of a memory copy, a synced one and an fsync of dirty data only
        // after the media wrote them.
        WriteBackCache<HddState> model = WriteBackCache.osdHdd7200();
        ManualClock clock = new ManualClock();
        EmulatedDevice<WriteBackState<HddState>> device = new EmulatedDevice<>(model, clock, new MovingWaiter(clock));
        long mediaWriteNanos = Math.round(OBJECT * 1e9 / 210_000_000); // 128 KiB in the fastest zone
        try (ObjectStore store = ObjectStore.open(folder, device, false)) {
            StripeLayout layout = StripeLayout.single(OBJECT);
            long before = clock.monotonicNanos();
            store.write("file-a", layout, 0, 0, ByteBuffer.wrap(new byte[OBJECT]), 0, false);
            long unsyncedNanos = clock.monotonicNanos() - before;
            before = clock.monotonicNanos();
            store.fsync("file-a");
            long fsyncNanos = clock.monotonicNanos() - before;
            before = clock.monotonicNanos();
            store.write("file-b", layout, 0, 0, ByteBuffer.wrap(new byte[OBJECT]), 0, true);
            long syncedNanos = clock.monotonicNanos() - before;
            assertThat(unsyncedNanos).isLessThan(mediaWriteNanos / 5);
            assertThat(fsyncNanos).isGreaterThan(mediaWriteNanos);
            assertThat(syncedNanos).isGreaterThan(mediaWriteNanos);
            before = clock.monotonicNanos();
            store.fsync("file-b");
            assertThat(clock.monotonicNanos() - before).as("nothing dirty left to flush").isZero();
        }
    }

    @Test
    void theObjectStoreChargesReadsAndWritesAndStillDoesTheRealIo(@TempDir Path folder) throws Exception {
        // Proves the store passes each object access through the device while the bytes still reach the disk.
        ManualClock clock = new ManualClock();
        MovingWaiter waiter = new MovingWaiter(clock);
        EmulatedDevice<HddState> device = new EmulatedDevice<>(HDD, clock, waiter);
        try (ObjectStore store = ObjectStore.open(folder, device, false)) {
            StripeLayout layout = new StripeLayout(OBJECT, 2, 1);
            byte[] data = new byte[OBJECT];
            data[5] = 42;
            store.write("file-a", layout, 3, 0, ByteBuffer.wrap(data), 0, false);
            assertThat(store.read("file-a", layout, 3, 0, OBJECT)).isEqualTo(data);
            store.truncate("file-a", layout, 10, 1);
            store.fsync("file-a");
            assertThat(device.accesses()).isEqualTo(2); // truncate is not charged, fsync is a flush, not an access
            assertThat(waiter.awaited).hasSize(3); // the fsync waits for the flush (nothing to flush write-through)
            assertThat(clock.monotonicNanos()).isEqualTo(waiter.awaited.get(2));
        }
        // Object 3 of a width-2 stripe is this OSD's second object (local index 1): right after the first.
        IoRequest expected = DeviceLayout.request(IoKind.WRITE, "file-a", 1, OBJECT, 0, OBJECT, HDD.capacityBytes());
        assertThat(expected.offsetBytes()).isEqualTo(DeviceLayout.regionStartBytes("file-a", HDD.capacityBytes())
                + OBJECT);
    }
}
