package org.xtreemfs.osd.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.clock.SystemClock;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.rpc.RpcServer;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.osd.OsdInterface;
import org.xtreemfs.interfaces.osd.OsdProcedure;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.ReadResponse;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;
import org.xtreemfs.osd.replication.XLocVersions;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.DeletionQueue;
import org.xtreemfs.osd.storage.ObjectStore;
import org.xtreemfs.osd.storage.StorageDevice;
import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.device.IoKind;

/**
 * The storage stage running small requests on the network thread that received them ({@link StorageStage#inlineAfter})
 * over a real RPC server and object store: which thread ran each access is what the device is told on (every read and
 * write announces itself to the {@link StorageDevice} on the thread that performs it). The stage times its inline runs
 * on a manual clock that only the device moves, so how long an access takes is what the test says, whatever the load.
 */
class StorageStageInlineTest {
    private static final String FILE = "vol:1";
    private static final int OBJECT_SIZE = 4096;
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();

    @TempDir
    Path folder;

    /** The thread of every access, in order. */
    private final List<String> accessThreads = new CopyOnWriteArrayList<>();
    /** The stage's clock: moved only by an access, by {@link #slowAccessNanos}, and by the test. */
    private final ManualClock clock = new ManualClock();
    /** While positive every access takes this long on {@link #clock}, as one that waits for the disk. */
    private volatile long slowAccessNanos;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private InetSocketAddress address;
    private OsdServiceClient osd;
    private StorageStage storage;

    private final StorageDevice device = new StorageDevice() {
        @Override
        public long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
                long lengthBytes, IoKind kind, boolean synced) {
            accessThreads.add(Thread.currentThread().getName());
            clock.advance(Duration.ofNanos(slowAccessNanos));
            return 0;
        }

        @Override
        public long flush(String fileId) {
            return 0;
        }

        @Override
        public void end(long completionNanos) {}
    };

    private void start(StorageStage.InlineRule rule) throws Exception {
        InMemoryKvStore metadata = new InMemoryKvStore();
        ObjectStore store = new ObjectStore(folder.resolve("objects"), metadata, device);
        opened.add(store);
        DeletionQueue deletions = new DeletionQueue(metadata, folder.resolve("deletions"), SystemClock.INSTANCE, 0, 16);
        storage = new StorageStage(store, deletions, 2, 64, true, clock, request -> { }, null,
                ReadResponse::getDefaultInstance, new XLocVersions(metadata),
                new StorageHealth("osd", 5, System::nanoTime), rule);
        opened.add(0, storage);
        PreprocessingStage.Next entry = storage.inlineAfter(request -> {
            if (!storage.offer(request)) {
                throw RpcException.overloaded("storage full");
            }
        });
        int osdInterface = OsdInterface.OSD_INTERFACE_ID_VALUE;
        RpcServer server = RpcServer.builder("inline", new InetSocketAddress("127.0.0.1", 0))
                .handle(osdInterface, OsdProcedure.OSD_WRITE_VALUE, call -> {
                    WriteRequest write = call.request(WriteRequest.parser());
                    entry.accept(authorized(new OsdRequest.WriteObject(call, FileCredentials.getDefaultInstance(),
                            FILE, write.getObjectNumber(), write.getOffset(), write.getSync(), call.data())));
                })
                .handle(osdInterface, OsdProcedure.OSD_READ_VALUE, call -> {
                    ReadRequest read = call.request(ReadRequest.parser());
                    entry.accept(authorized(new OsdRequest.ReadObject(call, FileCredentials.getDefaultInstance(),
                            FILE, read.getObjectNumber(), read.getOffset(), read.getLength())));
                })
                .build();
        opened.add(0, server);
        address = server.start();
        RpcClient client = new RpcClient("inline-test");
        opened.add(0, client);
        osd = new OsdServiceClient(client, 10_000);
    }

    private static AuthorizedRequest authorized(OsdRequest request) {
        return new AuthorizedRequest(request, "vol", 0, StripeLayout.single(OBJECT_SIZE));
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    private void write(long objectNumber, byte[] data, boolean sync) throws RpcException {
        RpcClient.await(osd.write(address, USER, WriteRequest.newBuilder().setFileId(FILE)
                .setObjectNumber(objectNumber).setSync(sync).build(), Unpooled.wrappedBuffer(data)));
    }

    private byte[] read(long objectNumber, int length) throws RpcException {
        try (RpcResponse response = RpcClient.await(osd.read(address, USER, ReadRequest.newBuilder().setFileId(FILE)
                .setObjectNumber(objectNumber).setLength(length).build()))) {
            return response.dataBytes();
        }
    }

    /** The thread that ran the next access, performed by {@code access}. */
    private String threadOf(ThrowingRunnable access) throws Exception {
        int before = accessThreads.size();
        access.run();
        assertThat(accessThreads).hasSize(before + 1);
        return accessThreads.get(before);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static boolean networkThread(String name) {
        return name.startsWith("inline-net");
    }

    @Test
    void smallRequestsRunOnTheNetworkThreadAndOneThatWaitsSendsTheNextToTheWorkersForThePause() throws Exception {
        // Proves: small reads and unsynced writes run on the thread that received them (once nothing is slow), synced
        // and larger ones on the workers; two slow ones in a row send the next to the workers, for exactly the pause.
        // Slow and the pause as in the OSD, on the manual clock: only an access made slow moves it.
        long slowNanos = StorageStage.InlineRule.SLOW_NANOS_DEFAULT;
        long pauseNanos = StorageStage.InlineRule.PAUSE_NANOS_DEFAULT;
        start(new StorageStage.InlineRule(OBJECT_SIZE / 2, slowNanos, 2, pauseNanos));
        write(0, new byte[OBJECT_SIZE], false); // creates the object
        byte[] data = "inline".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        await().atMost(Duration.ofSeconds(30)).until(() -> networkThread(threadOf(() -> write(0, data, false))));
        await().atMost(Duration.ofSeconds(30)).until(() -> networkThread(threadOf(
                () -> assertThat(read(0, data.length)).isEqualTo(data))));
        assertThat(threadOf(() -> write(0, data, true))).startsWith("stage-storage");
        assertThat(threadOf(() -> read(0, OBJECT_SIZE))).startsWith("stage-storage");
        assertThat(storage.inlineRuns()).isPositive();

        // Two slow runs in a row on the network thread pause it; one alone, or one after a fast one, does not.
        long pausesBefore = storage.inlinePauses();
        slowAccessNanos = slowNanos + 1;
        assertThat(networkThread(threadOf(() -> read(0, data.length)))).isTrue();
        slowAccessNanos = slowNanos; // exactly the limit: not slow
        assertThat(networkThread(threadOf(() -> read(0, data.length)))).isTrue();
        slowAccessNanos = slowNanos + 1;
        assertThat(networkThread(threadOf(() -> read(0, data.length)))).isTrue();
        assertThat(storage.inlinePauses()).isEqualTo(pausesBefore);
        assertThat(networkThread(threadOf(() -> read(0, data.length)))).isTrue();
        slowAccessNanos = 0;
        assertThat(storage.inlinePauses()).isEqualTo(pausesBefore + 1);
        // The pause runs from the end of the second slow run: paused until its last nanosecond, not after.
        assertThat(threadOf(() -> read(0, data.length))).startsWith("stage-storage");
        clock.advance(Duration.ofNanos(pauseNanos - 1));
        assertThat(threadOf(() -> read(0, data.length))).startsWith("stage-storage");
        clock.advance(Duration.ofNanos(1));
        assertThat(networkThread(threadOf(() -> read(0, data.length)))).isTrue();
        assertThat(storage.inlinePauses()).isEqualTo(pausesBefore + 1);
    }

    @Test
    void manyRequestsInFlightAreEachAnsweredOnceWithTheirOwnBytes() throws Exception {
        // Proves requests pipelined on one connection, some run inline and some on the workers, all get their answers
        // with the right bytes (the replies are flushed in batches by the RPC server).
        start(StorageStage.InlineRule.upTo(OBJECT_SIZE));
        int objects = 64;
        List<CompletableFuture<?>> writes = new ArrayList<>();
        for (int object = 0; object < objects; object++) {
            byte[] bytes = new byte[OBJECT_SIZE];
            java.util.Arrays.fill(bytes, (byte) object);
            writes.add(osd.write(address, USER, WriteRequest.newBuilder().setFileId(FILE).setObjectNumber(object)
                    .build(), Unpooled.wrappedBuffer(bytes)));
        }
        for (CompletableFuture<?> write : writes) {
            RpcClient.await(write);
        }
        for (int round = 0; round < 4; round++) {
            // The stage's capacity (64) is one burst: a work gives its place back only after its reply went out, so
            // the next burst waits until every place of the last one is free (else one of it may be refused: "storage
            // full", seen once in CI at load).
            await().atMost(Duration.ofSeconds(30)).until(() -> storage.admittedWorks() == 0);
            List<CompletableFuture<RpcResponse>> reads = new ArrayList<>();
            for (int object = 0; object < objects; object++) {
                reads.add(osd.read(address, USER, ReadRequest.newBuilder().setFileId(FILE).setObjectNumber(object)
                        .setLength(OBJECT_SIZE).build()));
            }
            for (int object = 0; object < objects; object++) {
                try (RpcResponse response = RpcClient.await(reads.get(object))) {
                    byte[] expected = new byte[OBJECT_SIZE];
                    java.util.Arrays.fill(expected, (byte) object);
                    assertThat(response.dataBytes()).as("object %d", object).isEqualTo(expected);
                }
            }
        }
        assertThat(storage.inlineRuns()).isPositive();
    }
}
