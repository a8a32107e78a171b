package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Client;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.MrcInterface;
import org.xtreemfs.interfaces.mrc.MrcProcedure;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Nothing the MRC acknowledged is lost when its process is killed (kill -9) while many creates are in
 * flight: every create answered before the kill exists after the restart, with the inode it was answered
 * with. The creates run 32 at a time from one client, as the FUSE mount's threads send them, so the kill
 * lands between operations queued, being applied, written and answered; the reads (getattr) that check
 * them afterwards are served on the network thread (MetadataOp#readsOnly), concurrently with the creates
 * that a second round sends.
 */
class MrcKillDuringCreatesTest {
    private static final UserCredentials ROOT = UserCredentials.newBuilder().setUsername("root").build();
    private static final int O_WRONLY_CREAT_EXCL = OpenFlags.O_WRONLY | OpenFlags.O_CREAT | OpenFlags.O_EXCL;
    private static final long TIMEOUT_MS = 10_000;
    private static final int IN_FLIGHT = 32;
    private static final int ACKNOWLEDGED_BEFORE_KILL = 300;
    private TestCluster cluster;
    private final RpcClient rpc = new RpcClient("kill-during-creates-test");

    @AfterEach
    void stop() {
        rpc.close();
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyCreateAnsweredBeforeAKillDashNineExistsAfterTheRestart() throws Exception {
        cluster = TestCluster.startProcesses(List.of(Map.of()), Map.of());
        try (Client client = cluster.client()) {
            Volumes.create(client, "kill", 1);
        }
        Map<String, Long> acknowledged = new ConcurrentHashMap<>();
        AtomicInteger failed = new AtomicInteger();
        Semaphore slots = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<?>> sent = new ArrayList<>();
        // Sends until the kill makes calls fail; bounded by the count in case the kill never lands.
        for (int i = 0; i < 20_000 && failed.get() == 0; i++) {
            slots.acquire();
            String path = "/f" + i;
            sent.add(create(path).whenComplete((response, error) -> {
                if (error == null) {
                    acknowledged.put(path, response.getStat().getInode());
                } else {
                    failed.incrementAndGet();
                }
                slots.release();
            }));
            if (i == ACKNOWLEDGED_BEFORE_KILL + IN_FLIGHT) {
                awaitAcknowledged(acknowledged, ACKNOWLEDGED_BEFORE_KILL);
                cluster.kill("mrc", "KILL");
            }
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                .get(TIMEOUT_MS * 2, TimeUnit.MILLISECONDS);
        assertThat(acknowledged).as("creates answered before the kill").hasSizeGreaterThanOrEqualTo(
                ACKNOWLEDGED_BEFORE_KILL);
        assertThat(failed.get()).as("the kill cut creates off in flight").isPositive();

        cluster.restart("mrc");
        // A second round of creates runs while the answered ones are checked.
        List<CompletableFuture<OpenResponse>> more = new ArrayList<>();
        for (int i = 0; i < IN_FLIGHT; i++) {
            more.add(create("/after" + i));
        }
        for (Map.Entry<String, Long> file : acknowledged.entrySet()) {
            assertThat(getattr(file.getKey()).getStat().getInode()).as(file.getKey() + " was answered before the kill")
                    .isEqualTo(file.getValue());
        }
        for (CompletableFuture<OpenResponse> created : more) {
            assertThat(created.get(TIMEOUT_MS, TimeUnit.MILLISECONDS).getStat().getInode())
                    .as("a new inode, none reused from before the kill").isNotIn(acknowledged.values());
        }
    }

    private static void awaitAcknowledged(Map<String, Long> acknowledged, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS * 3);
        while (acknowledged.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private InetSocketAddress mrc() {
        return new InetSocketAddress("127.0.0.1", cluster.launcher().port("mrc"));
    }

    private CompletableFuture<OpenResponse> create(String path) {
        OpenRequest request = OpenRequest.newBuilder().setVolumeName("kill").setPath(path)
                .setFlags(O_WRONLY_CREAT_EXCL).setMode(0644).build();
        return rpc.call(mrc(), MrcInterface.MRC_INTERFACE_ID_VALUE, MrcProcedure.MRC_OPEN.getNumber(), ROOT, request,
                null, TIMEOUT_MS).thenApply(response -> {
                    try (RpcResponse answer = response) {
                        return answer.message(OpenResponse.parser());
                    } catch (RpcException e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    private GetattrResponse getattr(String path) throws RpcException {
        try (RpcResponse response = RpcClient.await(rpc.call(mrc(), MrcInterface.MRC_INTERFACE_ID_VALUE,
                MrcProcedure.MRC_GETATTR.getNumber(), ROOT, PathRequest.newBuilder().setVolumeName("kill")
                        .setPath(path).build(), null, TIMEOUT_MS))) {
            return response.message(GetattrResponse.parser());
        }
    }
}
