package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.QosShare;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * An in-process sequential OSD in front of a slow device (one request at a time, 16 MiB/s), overloaded by a
 * best-effort volume keeping 32 writes outstanding next to a volume with a 6 MiB/s reservation share keeping
 * 4 outstanding. Both policies in the same test, so it can fail: fair keeps >= 90 % of the reservation, FIFO
 * (arrival order: the reserved volume gets about 4/36 of the device) falls below it.
 */
class OsdFairQueueTest {
    private static final String SECRET = "osd-fair-queue-test-secret";
    private static final String UUID = "osd-fair";
    private static final int WRITE_BYTES = 64 * 1024;
    private static final long DEVICE_BYTES_PER_SECOND = 16L << 20;
    private static final long RESERVATION_BYTES_PER_SECOND = 6L << 20;
    private static final long WARM_UP_MS = 1_000;
    private static final long MEASURE_MS = 4_000;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();

    @TempDir
    Path dataFolder;

    @Test
    void aReservedVolumeKeepsNinetyPercentOfItsReservationWithFairAndNotWithFifo() throws Exception {
        double fair = reservedBytesPerSecond("fair", dataFolder.resolve("fair"));
        double fifo = reservedBytesPerSecond("fifo", dataFolder.resolve("fifo"));
        System.out.printf("OsdFairQueueTest: reserved volume got %.1f MiB/s with fair, %.1f MiB/s with fifo "
                + "(reservation %.1f MiB/s, device %.1f MiB/s)%n", fair / (1 << 20), fifo / (1 << 20),
                (double) RESERVATION_BYTES_PER_SECOND / (1 << 20), (double) DEVICE_BYTES_PER_SECOND / (1 << 20));
        assertThat(fair).as("fair: reserved volume's rate").isGreaterThanOrEqualTo(0.9 * RESERVATION_BYTES_PER_SECOND);
        assertThat(fifo).as("fifo: reserved volume's rate").isLessThan(0.9 * RESERVATION_BYTES_PER_SECOND);
    }

    /** Runs both volumes against a fresh OSD with {@code policy}; the reserved volume's achieved bytes/s. */
    private double reservedBytesPerSecond(String policy, Path folder) throws Exception {
        FakeDir dir = new FakeDir();
        OsdServer server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(folder, dir.hostPort(), UUID, SECRET,
                Map.of("osd.usage.type", "sequential", "osd.qos.policy", policy, "osd.qos.inFlightMax", "2",
                        "osd.heartbeat.periodMs", "60000"))), SystemClock.INSTANCE,
                request -> request.request().costBytes() * 1_000_000_000L / DEVICE_BYTES_PER_SECOND);
        RpcClient rpcClient = new RpcClient("osd-fair-queue-test");
        AtomicBoolean running = new AtomicBoolean(true);
        try {
            java.net.InetSocketAddress address = server.start().rpc();
            OsdServiceClient osd = new OsdServiceClient(rpcClient, 30_000);
            Writer reserved = new Writer(osd, address, credentials("reserved", RESERVATION_BYTES_PER_SECOND), running);
            Writer flood = new Writer(osd, address, credentials("flood", 0), running);
            reserved.start(4);
            flood.start(32);
            Thread.sleep(WARM_UP_MS);
            long bytesBefore = reserved.bytesWritten.get();
            long startNanos = System.nanoTime();
            Thread.sleep(MEASURE_MS);
            long bytes = reserved.bytesWritten.get() - bytesBefore;
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            assertThat(flood.bytesWritten.get()).as("the best-effort volume was served too").isPositive();
            assertThat(reserved.failures.get() + flood.failures.get()).as("failed writes").isZero();
            return bytes / seconds;
        } finally {
            running.set(false);
            rpcClient.close();
            server.close();
            dir.close();
        }
    }

    private FileCredentials credentials(String volume, long reservationBytesPerSecond) {
        XCap.Builder capability = XCap.newBuilder().setFileId(volume + ":1").setVolumeId(volume)
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).setExpiresMs(System.currentTimeMillis() + 600_000);
        if (reservationBytesPerSecond > 0) {
            capability.setQosShare(QosShare.newBuilder().setType(QosType.SEQUENTIAL)
                    .setThroughputBytesPerSecond(reservationBytesPerSecond));
        }
        return FileCredentials.newBuilder().setXcap(new XCapSigner(SECRET).sign(capability.build()))
                .setXlocs(XLocSet.newBuilder().addReplicas(Replica.newBuilder().addOsdUuids(UUID)
                        .setStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(WRITE_BYTES).setWidth(1))))
                .build();
    }

    /** Keeps a fixed number of writes outstanding: each completion sends the next (a closed loop). */
    private static final class Writer {
        private final OsdServiceClient osd;
        private final java.net.InetSocketAddress address;
        private final FileCredentials credentials;
        private final AtomicBoolean running;
        private final AtomicLong objectNumber = new AtomicLong();
        final AtomicLong bytesWritten = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        private final byte[] data = new byte[WRITE_BYTES];

        Writer(OsdServiceClient osd, java.net.InetSocketAddress address, FileCredentials credentials,
                AtomicBoolean running) {
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
                    .setFileId(credentials.getXcap().getFileId()).setObjectNumber(objectNumber.getAndIncrement() % 64)
                    .setOffset(0).build();
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
