package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
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

    @BeforeEach
    void startCluster() throws Exception {
        cluster = TestCluster.startProcesses(1);
    }

    @AfterEach
    void stopCluster() {
        cluster.close();
    }

    // Data fsynced before the OSD process is killed with SIGKILL mid-write is intact after it restarts on the
    // same folder (same UUID, same port), read through a new client.
    @Test
    void fsyncedWritesSurviveKillDashNine() throws Exception {
        String osdUuid;
        byte[] synced = new byte[SYNCED_BYTES];
        new Random(5).nextBytes(synced);
        try (Client client = cluster.client(ClientOptions.builder().retryAttemptsMax(2).requestTimeoutMs(3_000))) {
            awaitOsdAvailable(client);
            Volumes.create(client, "crash", 1);
            FileHandle file = client.openVolume("crash").open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            osdUuid = file.stripeOsdUuids().get(0);
            assertThat(osdUuid).isEqualTo(cluster.osdUuids().get(0));
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
            cluster.kill("osd0", "KILL");
            stop.set(true);
            writer.join(30_000);
            assertThat(writer.isAlive()).isFalse();
        }

        cluster.restart("osd0"); // returns once the new process is registered at the DIR
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
