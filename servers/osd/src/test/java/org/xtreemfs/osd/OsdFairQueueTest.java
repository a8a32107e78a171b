package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;
import org.xtreemfs.osd.metrics.VolumeAccounting;
import org.xtreemfs.osd.storage.DeviceEmulation;
import org.xtreemfs.qos.model.OsdUsageType;

/**
 * An in-process sequential OSD on the emulated 7200 rpm HDD ({@code osd.device.emulation=hdd7200}, the OSD's one
 * way to be slow in tests), overloaded by a best-effort volume writing 16 files with 2 writes outstanding each,
 * next to a volume writing one file with 4 outstanding and a sequential reservation of half what the profile
 * the OSD registers admits at two streams (7.6 MiB/s). The writes are unsynced: the emulated disk's host
 * write-back takes them from memory until its 64 MiB are dirty, within the warm-up, and from then on at the
 * rate its sorted write-back of 17 interleaved files reaches (about 20 MiB/s at the emulation's half speed),
 * so requests wait in the QoS stage (2 in flight), not for the CPU: the service times are the model's
 * milliseconds, which hold on a loaded machine. Both policies in the same test, so it can fail: fair keeps >=
 * 90 % of the reservation (the reserved flow is served on its reservation and shares what is left equally with
 * the flood), FIFO serves in arrival order, so the reserved volume gets about 4 of every 36 writes, about a
 * third of its reservation.
 */
class OsdFairQueueTest {
    private static final String SECRET = "osd-fair-queue-test-secret";
    private static final String UUID = "osd-fair";
    /** The calibration pattern's sequential request size, the one the profile's floor is measured with. */
    private static final int WRITE_BYTES = 128 * 1024;
    private static final int FLOOD_FILES = 16;
    private static final int FLOOD_OUTSTANDING_PER_FILE = 2;
    private static final int RESERVED_OUTSTANDING = 4;
    /** Objects written per file before the writer starts over (bounds the data folder: 2 MiB per file). */
    private static final int OBJECTS_PER_FILE = 16;
    private static final long FLOOR_BYTES_PER_SECOND = DeviceEmulation.HDD7200
            .derivedProfile(OsdUsageType.SEQUENTIAL).sequentialThroughput().floorBytesPerSecond();
    /** What the emulated disk's profile admits at two streams (the reserved volume and the flood). */
    private static final long TWO_STREAMS_BYTES_PER_SECOND = DeviceEmulation.HDD7200
            .derivedProfile(OsdUsageType.SEQUENTIAL).sequentialThroughput().admissibleBytesPerSecond(2);
    private static final long RESERVATION_BYTES_PER_SECOND = TWO_STREAMS_BYTES_PER_SECOND / 2;
    /** Long enough for the write-back's 64 MiB to fill (about 2 s at the flood's rate), so the measurement is steady. */
    private static final long WARM_UP_MS = 3_000;
    private static final long MEASURE_MS = 6_000;
    /** The OSD's accounting window (1 s). */
    private static final long WINDOW_NANOS = 1_000_000_000L;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();

    @TempDir
    Path dataFolder;

    @Test
    void aReservedVolumeKeepsNinetyPercentOfItsReservationWithFairAndNotWithFifo() throws Exception {
        Rates fair;
        Rates fifo;
        try (CpuWaitSampler cpuWait = new CpuWaitSampler(100)) {
            fair = rates("fair", dataFolder.resolve("fair"), cpuWait);
            fifo = rates("fifo", dataFolder.resolve("fifo"), cpuWait);
        }
        System.out.printf("OsdFairQueueTest: reserved volume got %.2f MiB/s with fair (flood %.2f MiB/s), "
                + "%.2f MiB/s with fifo (flood %.2f MiB/s); reservation %.2f MiB/s, disk floor %.2f MiB/s%n",
                mebibytes(fair.reservedBytesPerSecond()), mebibytes(fair.floodBytesPerSecond()),
                mebibytes(fifo.reservedBytesPerSecond()), mebibytes(fifo.floodBytesPerSecond()),
                mebibytes(RESERVATION_BYTES_PER_SECOND), mebibytes(FLOOR_BYTES_PER_SECOND));
        System.out.printf("OsdFairQueueTest: windows with demand / met / missed for want of capacity / missed by the "
                + "queue / slots given to others while it waited: fair %d/%d/%d/%d/%d, fifo %d/%d/%d/%d/%d%n",
                fair.windowsWithDemand(), fair.windowsMet(), fair.windowsShortOfCapacity(), fair.windowsMissedByQueue(),
                fair.windowsGivenAway(), fifo.windowsWithDemand(), fifo.windowsMet(), fifo.windowsShortOfCapacity(),
                fifo.windowsMissedByQueue(), fifo.windowsGivenAway());
        // What the fair queue guarantees is the reservation while the volume has requests waiting (backlogged):
        // the OSD's own accounting judges each 1-s window against the reservation times the fraction of it in which
        // the volume was backlogged. The volume's overall rate is not asserted for fair: its closed-loop client
        // keeps only 4 writes outstanding, and on a CPU-starved machine (load 23 on 2 cores: 3.96 MiB/s against
        // 11.33 MiB/s for the flood's 32 outstanding) each answer waits for a CPU before the next write is sent,
        // so the volume is often not backlogged and the rate measures the client's CPU, not the queue.
        //
        // Nor can every window be met on such a machine: at load 25-35 the OSD's threads (this JVM's, summed) wait
        // 4-6 s per second for a CPU, and a window in which the volume waited 330 ms got 1.75 MiB of the 2.24 MiB
        // it was owed while the queue released nothing of the flood meanwhile (the flood's 8 MiB of that second
        // went while the volume had nothing waiting): every slot was the volume's, and its requests (one at a time
        // on the single head) took longer than the reservation allows because each completion waited for a CPU.
        // That is the machine's shortfall, not the queue's, and the OSD's own counter tells them apart: what the
        // queue released of other volumes while this one waited (VolumeAccounting.Window). So a missed window
        // counts against the queue when others got more than a tenth of the volume's entitlement meanwhile; the
        // fair queue has no such window. Under FIFO the flood's requests ahead of the volume's go first: while the
        // volume waits, others get far more than a tenth of its entitlement (0.4-5x all of it at load 30), in
        // (nearly) every window, whatever the CPU.
        assertThat(fifo.reservedBytesPerSecond()).as("fifo: reserved volume's rate")
                .isLessThan(0.9 * RESERVATION_BYTES_PER_SECOND);
        assertThat(fair.windowsWithDemand()).isGreaterThanOrEqualTo(5);
        assertThat(fair.windowsMissedByQueue()).as("fair: windows missed while the queue released other volumes'"
                + " requests (met %d, short of capacity %d of %d)", fair.windowsMet(), fair.windowsShortOfCapacity(),
                fair.windowsWithDemand()).isZero();
        assertThat(fifo.windowsWithDemand()).isGreaterThanOrEqualTo(5);
        assertThat(fifo.windowsGivenAway()).as("fifo: windows in which the queue released others' requests while the"
                + " volume waited").isGreaterThanOrEqualTo(fifo.windowsWithDemand() - 2);
    }

    /** Of a window's entitlement, what others may have been released meanwhile before a miss is the queue's. */
    private static final double QUEUE_FAULT_FRACTION = 0.1;

    /**
     * What each volume achieved, in bytes/s over the measured window, and the OSD's judgement of the reserved
     * volume's 1-s windows that closed during the measurement: with demand; met (90 % of the reservation for the
     * time it waited); missed while the queue released no more than {@link #QUEUE_FAULT_FRACTION} of its
     * entitlement of other volumes meanwhile (short of capacity: every slot was its own); missed otherwise (by the
     * queue's order); and, met or not, those in which the queue released more than that of others while it waited
     * (slots went elsewhere: the fair queue may do so only while the volume is ahead of its reservation).
     */
    private record Rates(double reservedBytesPerSecond, double floodBytesPerSecond, long windowsWithDemand,
            long windowsMet, long windowsShortOfCapacity, long windowsMissedByQueue, long windowsGivenAway) {}

    /** Judges the reserved volume's windows that closed in (fromNanos, toNanos], printing each. */
    private static Rates judge(String policy, VolumeAccounting accounting, long fromNanos, long toNanos,
            double reservedBytesPerSecond, double floodBytesPerSecond, CpuWaitSampler cpuWait) {
        long withDemand = 0;
        long met = 0;
        long shortOfCapacity = 0;
        long missedByQueue = 0;
        long givenAway = 0;
        List<VolumeAccounting.Window> flood = accounting.windows("flood", toNanos);
        for (VolumeAccounting.Window window : accounting.windows("reserved", toNanos)) {
            long endNanos = window.startNanos() + WINDOW_NANOS;
            if (endNanos <= fromNanos || endNanos > toNanos || !window.demand()) {
                continue;
            }
            withDemand++;
            double entitledCost = RESERVATION_BYTES_PER_SECOND * window.backloggedNanos() / 1e9;
            long others = window.othersReleasedCostWhileBacklogged();
            if (window.met()) {
                met++;
            } else if (others <= QUEUE_FAULT_FRACTION * entitledCost) {
                shortOfCapacity++;
            } else {
                missedByQueue++;
            }
            if (others > QUEUE_FAULT_FRACTION * entitledCost) {
                givenAway++;
            }
            long floodCost = flood.stream().filter(w -> w.startNanos() == window.startNanos())
                    .mapToLong(VolumeAccounting.Window::achievedCost).sum();
            System.out.printf("OsdFairQueueTest %s window ending %+.1f s: reserved got %.2f MiB, waited %d ms, owed "
                    + "90 %% of %.2f MiB (%s); the queue released %.2f MiB of others while it waited; flood got %.2f "
                    + "MiB in the window; this JVM's threads waited %d ms for a CPU%n", policy,
                    (endNanos - fromNanos) / 1e9, mebibytes(window.achievedCost()), window.backloggedNanos() / 1_000_000,
                    mebibytes(entitledCost), window.met() ? "met" : "missed", mebibytes(others), mebibytes(floodCost),
                    cpuWait.waitNanos(window.startNanos(), endNanos) / 1_000_000);
        }
        return new Rates(reservedBytesPerSecond, floodBytesPerSecond, withDemand, met, shortOfCapacity, missedByQueue,
                givenAway);
    }

    /** Runs both volumes against a fresh emulated-HDD OSD with {@code policy}. */
    private Rates rates(String policy, Path folder, CpuWaitSampler cpuWait) throws Exception {
        FakeDir dir = new FakeDir();
        OsdServer server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(folder, dir.hostPort(), UUID, SECRET,
                // osd.qos.inFlightMax stays at its default, which is what an emulated HDD needs (OsdConfig).
                Map.of("osd.usage.type", "sequential", "osd.device.emulation", "hdd7200", "osd.qos.policy", policy,
                        "osd.heartbeat.periodMs", "60000"))), SystemClock.INSTANCE);
        RpcClient rpcClient = new RpcClient("osd-fair-queue-test");
        AtomicBoolean running = new AtomicBoolean(true);
        try {
            InetSocketAddress address = server.start().rpc();
            OsdServiceClient osd = new OsdServiceClient(rpcClient, 60_000);
            Writer reserved = new Writer(osd, address, credentials("reserved", 1, RESERVATION_BYTES_PER_SECOND),
                    running);
            List<Writer> flood = new ArrayList<>();
            for (int file = 1; file <= FLOOD_FILES; file++) {
                flood.add(new Writer(osd, address, credentials("flood", file, 0), running));
            }
            reserved.start(RESERVED_OUTSTANDING);
            flood.forEach(writer -> writer.start(FLOOD_OUTSTANDING_PER_FILE));
            Thread.sleep(WARM_UP_MS);
            long reservedBefore = reserved.bytesWritten.get();
            long floodBefore = bytesWritten(flood);
            long startNanos = System.nanoTime();
            Thread.sleep(MEASURE_MS);
            long reservedBytes = reserved.bytesWritten.get() - reservedBefore;
            long floodBytes = bytesWritten(flood) - floodBefore;
            long endNanos = System.nanoTime();
            double seconds = (endNanos - startNanos) / 1e9;
            assertThat(floodBytes).as("the best-effort volume was served too").isPositive();
            assertThat(reserved.failures.get() + flood.stream().mapToLong(writer -> writer.failures.get()).sum())
                    .as("failed writes").isZero();
            assertThat(reservedAccounting(server).get("reservedCostPerSecond")).isEqualTo(RESERVATION_BYTES_PER_SECOND);
            // Only the windows that closed during the measurement: the warm-up's first window starts with the
            // JVM's first writes (class loading, compilation, the object folders created), which the benchmark's
            // warm-up leaves out too; counting it made the test fail now and then (fair 7 of 8 windows while the
            // volume averaged 2.3x its reservation).
            return judge(policy, server.qos().accounting(), startNanos, endNanos, reservedBytes / seconds,
                    floodBytes / seconds, cpuWait);
        } finally {
            running.set(false);
            rpcClient.close();
            server.close();
            dir.close();
        }
    }

    /** The OSD's accounting of the reserved volume, as its status page shows it. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> reservedAccounting(OsdServer server) {
        return ((List<Map<String, Object>>) server.status().get("qosVolumes")).stream()
                .filter(volume -> volume.get("volumeId").equals("reserved")).findFirst().orElseThrow();
    }

    private static long bytesWritten(List<Writer> writers) {
        return writers.stream().mapToLong(writer -> writer.bytesWritten.get()).sum();
    }

    private static double mebibytes(double bytes) {
        return bytes / (1 << 20);
    }

    private FileCredentials credentials(String volume, int file, long reservationBytesPerSecond) {
        return TestCapabilities.readWrite(SECRET, UUID, volume, file, reservationBytesPerSecond, WRITE_BYTES);
    }

    /** Keeps a fixed number of writes to one file outstanding: each completion sends the next (a closed loop). */
    private static final class Writer {
        private final OsdServiceClient osd;
        private final InetSocketAddress address;
        private final FileCredentials credentials;
        private final AtomicBoolean running;
        private final AtomicLong objectNumber = new AtomicLong();
        final AtomicLong bytesWritten = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        private final byte[] data = new byte[WRITE_BYTES];

        Writer(OsdServiceClient osd, InetSocketAddress address, FileCredentials credentials, AtomicBoolean running) {
            this.osd = osd;
            this.address = address;
            this.credentials = credentials;
            this.running = running;
        }

        void start(int outstanding) {
            for (int index = 0; index < outstanding; index++) {
                send();
            }
        }

        private void send() {
            if (!running.get()) {
                return;
            }
            WriteRequest request = WriteRequest.newBuilder().setCredentials(credentials)
                    .setFileId(credentials.getXcap().getFileId())
                    .setObjectNumber(objectNumber.getAndIncrement() % OBJECTS_PER_FILE).setOffset(0).build();
            osd.write(address, USER, request, Unpooled.wrappedBuffer(data)).whenComplete((response, error) -> {
                if (error == null) {
                    bytesWritten.addAndGet(WRITE_BYTES);
                } else if (running.get()) {
                    failures.incrementAndGet();
                }
                send();
            });
        }
    }
}
