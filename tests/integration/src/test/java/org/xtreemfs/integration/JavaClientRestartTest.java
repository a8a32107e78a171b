package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;

/**
 * The Java client (tools, Hadoop) rides through server restarts with its default retry window (60 s): an
 * OSD and then the MRC process are killed with SIGKILL and started again on the same port and data while one
 * thread writes a striped file and another repeats metadata changes (mkdir, O_EXCL create, rename, unlink,
 * rmdir). Neither sees an exception (a change applied twice would fail with EEXIST or ENOENT), both make
 * progress after the restarts, and the file reads back exactly.
 */
class JavaClientRestartTest {
    private static final int FILE_BYTES = 6 << 20;
    private static final int PIECE_BYTES = 64 << 10;
    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void osdAndMrcRestartsArePausesNotErrors() throws Exception {
        cluster = TestCluster.startProcesses(2);
        byte[] data = new byte[FILE_BYTES];
        new Random(10).nextBytes(data);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong written = new AtomicLong();
        AtomicInteger rounds = new AtomicInteger();
        try (Client client = cluster.client(ClientOptions.builder())) {
            assertThat(client.options().retryWindowMs()).as("the default window").isEqualTo(60_000);
            Volumes.create(client, "pause", 2);
            Volume volume = client.openVolume("pause");
            Thread writer = new Thread(() -> {
                try (FileHandle file = volume.open("/big", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                    for (int offset = 0; offset < FILE_BYTES && !stop.get(); offset += PIECE_BYTES) {
                        file.write(offset, data, offset, PIECE_BYTES);
                        written.addAndGet(PIECE_BYTES);
                        Thread.sleep(40);
                    }
                    file.fsync();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "writer");
            Thread metadata = new Thread(() -> {
                try {
                    for (int round = 0; !stop.get(); round++) {
                        volume.mkdir("/d" + round, 0755);
                        volume.open("/d" + round + "/f", OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY,
                                0644).close();
                        volume.rename("/d" + round + "/f", "/g" + round);
                        volume.unlink("/g" + round);
                        volume.rmdir("/d" + round);
                        rounds.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "metadata");
            writer.start();
            metadata.start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> rounds.get() >= 3 && written.get() > 0
                        || failure.get() != null);
                restartDuringWork("osd0", writer, written::get);
                restartDuringWork("mrc", metadata, rounds::get);
                long writtenAfter = written.get();
                int roundsAfter = rounds.get();
                await().atMost(Duration.ofSeconds(90)).until(() -> failure.get() != null
                        || rounds.get() > roundsAfter + 2 && (written.get() > writtenAfter || !writer.isAlive()));
            } finally {
                stop.set(true);
                writer.join(120_000);
                metadata.join(120_000);
            }
            assertThat(failure.get()).as("no application error across the restarts").isNull();
            long bytes = written.get();
            assertThat(bytes).isPositive();
            try (FileHandle file = volume.open("/big", OpenFlags.O_RDONLY, 0)) {
                Bytes.assertSameBytes(file.read(0, (int) bytes), java.util.Arrays.copyOf(data, (int) bytes));
            }
            assertThat(volume.readdir("/").stream().map(entry -> entry.getName())
                    .filter(name -> name.startsWith("d") || name.startsWith("g")))
                    .as("every round undid its names exactly").isEmpty();
        }
    }

    @Test
    void aChangeWhoseAnswersAreLostIsAppliedOnceAndSucceeds() throws Exception {
        // The MRC is frozen (SIGSTOP) for 5 s while a mkdir is sent; with a 1.5 s timeout the client sends it
        // three or four times, all waiting in the MRC's socket. On SIGCONT the first attempt creates the
        // directory and the later ones are answered from its record: mkdir succeeds, where applying a repeat
        // would have answered EEXIST.
        cluster = TestCluster.startProcesses(1);
        // Not cluster.client(), which sets a 15 s timeout: the attempts must time out during the freeze.
        try (Client client = Client.connect(cluster.dirAddress(), ClientOptions.builder().requestTimeoutMs(1_500)
                .retryBackoffInitialMs(20).retryBackoffMaxMs(500).build())) {
            Volumes.create(client, "lost", 1);
            Volume volume = client.openVolume("lost");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            cluster.kill("mrc", "STOP");
            Thread mkdir = new Thread(() -> {
                try {
                    volume.mkdir("/once", 0755);
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "mkdir");
            try {
                mkdir.start();
                Thread.sleep(5_000);
                assertThat(mkdir.isAlive()).as("the mkdir waits for the frozen MRC").isTrue();
            } finally {
                cluster.kill("mrc", "CONT");
            }
            mkdir.join(60_000);
            assertThat(failure.get()).as("mkdir succeeds although its first attempt was applied").isNull();
            assertThat(volume.readdir("/").stream().map(entry -> entry.getName()).filter("once"::equals))
                    .hasSize(1);
        }
    }

    /** Kills {@code server}, keeps it down 3 s and restarts it, checking that {@code worker} ran throughout. */
    private void restartDuringWork(String server, Thread worker, java.util.function.LongSupplier progress)
            throws Exception {
        assertThat(worker.isAlive()).as("works when " + server + " is killed").isTrue();
        cluster.kill(server, "KILL");
        long atKill = progress.getAsLong();
        Thread.sleep(3_000);
        cluster.restart(server);
        assertThat(worker.isAlive()).as("still works after " + server + " is back").isTrue();
        await().atMost(Duration.ofSeconds(60)).until(() -> progress.getAsLong() > atKill || !worker.isAlive());
    }
}
