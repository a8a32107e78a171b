package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;

/** kill -9 of an OSD process in the middle of writes loses nothing that an fsync acknowledged. */
class OsdKillTest {
    private static final int SYNCED_BYTES = 2 << 20;
    private static final int PIECE_BYTES = 64 << 10;
    private TestCluster cluster;
    private OsdProcess osd;

    @BeforeEach
    void startCluster() throws Exception {
        cluster = TestCluster.start(0);
    }

    @AfterEach
    void stopCluster() throws Exception {
        if (osd != null) {
            osd.close();
        }
        cluster.close();
    }

    // Data fsynced before the OSD process is killed with SIGKILL mid-write is intact after it restarts on the
    // same folder (same UUID, new port), read through a new client.
    @Test
    void fsyncedWritesSurviveKillDashNine() throws Exception {
        Path data = cluster.root().resolve("external-osd");
        String dir = TestCluster.hostPort(cluster.dirAddress());
        osd = OsdProcess.start(data, dir, Map.of());
        String osdUuid;
        int killedPort;
        byte[] synced = new byte[SYNCED_BYTES];
        new Random(5).nextBytes(synced);
        try (Client client = cluster.client(ClientOptions.builder().retryAttemptsMax(2).requestTimeoutMs(3_000))) {
            awaitOsdAvailable(client);
            Volumes.create(client, "crash", 1);
            FileHandle file = client.openVolume("crash").open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            osdUuid = file.stripeOsdUuids().get(0);
            killedPort = cluster.mappedPort(osdUuid);
            file.write(0, synced);
            file.fsync();

            AtomicInteger unsyncedWrites = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                byte[] piece = new byte[PIECE_BYTES];
                long offset = SYNCED_BYTES;
                while (!stop.get()) {
                    try {
                        file.write(offset, piece);
                        unsyncedWrites.incrementAndGet();
                        offset += PIECE_BYTES;
                    } catch (XtreemFSException expectedOnceKilled) {
                        return;
                    }
                }
            }, "writer-during-kill");
            writer.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> unsyncedWrites.get() >= 5);
            osd.kill();
            stop.set(true);
            writer.join(30_000);
            assertThat(writer.isAlive()).isFalse();
        }

        osd = OsdProcess.start(data, dir, Map.of());
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> cluster.mappedPort(osdUuid) != killedPort);
        try (Client fresh = cluster.client()) {
            try (FileHandle file = fresh.openVolume("crash").open("/f", OpenFlags.O_RDONLY, 0)) {
                Bytes.assertSameBytes(file.read(0, SYNCED_BYTES), synced);
            }
        }
    }

    private static void awaitOsdAvailable(Client client) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> client
                .services(ServiceType.SERVICE_TYPE_OSD).stream()
                .anyMatch(service -> service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE));
    }
}
