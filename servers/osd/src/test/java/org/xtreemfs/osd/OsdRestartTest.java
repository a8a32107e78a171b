package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;

class OsdRestartTest {
    private static final String SECRET = "restart-test-secret";
    private static final String FILE = "vol-r:5";
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();

    @TempDir
    Path dataFolder;

    private final ManualClock clock = new ManualClock();
    private final XCapSigner signer = new XCapSigner(SECRET);

    private OsdServer newServer(FakeDir dir) throws Exception {
        // No osd.uuid: the server generates one and must find it again after the restart.
        Map<String, String> values = TestOsdConfigs.loopback(dataFolder, dir.hostPort(), "", SECRET,
                Map.of("osd.deletion.delayMs", "10000"));
        return new OsdServer(OsdConfig.of(values), clock);
    }

    private FileCredentials credentials(String osdUuid) {
        XCap capability = signer.sign(XCap.newBuilder().setFileId(FILE).setVolumeId("vol-r")
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).setExpiresMs(clock.wallClockMillis() + 600_000)
                .build());
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder().addReplicas(
                Replica.newBuilder().addOsdUuids(osdUuid).setStripingPolicy(StripingPolicy.newBuilder()
                        .setObjectSizeBytes(4096).setWidth(1)))).build();
    }

    private static byte[] read(OsdServiceClient osd, InetSocketAddress address, FileCredentials credentials)
            throws RpcException {
        try (RpcResponse response = RpcClient.await(osd.read(address, USER, ReadRequest.newBuilder()
                .setCredentials(credentials).setFileId(FILE).setObjectNumber(0).setLength(4096).build()))) {
            return response.dataBytes();
        }
    }

    @Test
    void dataUuidAndPendingDeletionsSurviveARestartAndDeletionWaitsForItsGracePeriod() throws Exception {
        // Proves a restart keeps objects, the generated UUID and unlinked-but-not-yet-deleted files, which stay
        // readable until the delay has passed on the clock, and are then deleted.
        byte[] data = {1, 2, 3, 4, 5};
        try (FakeDir dir = new FakeDir(); RpcClient rpcClient = new RpcClient("restart-test")) {
            OsdServiceClient osd = new OsdServiceClient(rpcClient, 10_000);
            String uuid;
            try (OsdServer first = newServer(dir)) {
                InetSocketAddress address = first.start().rpc();
                uuid = first.uuid();
                FileCredentials credentials = credentials(uuid);
                RpcClient.await(osd.write(address, USER, WriteRequest.newBuilder().setCredentials(credentials)
                        .setFileId(FILE).setSync(true).build(), Unpooled.wrappedBuffer(data)));
                RpcClient.await(osd.unlink(address, USER, FileRequest.newBuilder().setCredentials(credentials)
                        .setFileId(FILE).build()));
                assertThat(read(osd, address, credentials)).isEqualTo(data);
            }
            try (OsdServer second = newServer(dir)) {
                OsdServer.Addresses addresses = second.start();
                assertThat(second.uuid()).isEqualTo(uuid);
                assertThat(second.deletions().isPending(FILE)).isTrue();
                assertThat(read(osd, addresses.rpc(), credentials(uuid))).isEqualTo(data);

                HttpResponse<String> status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + addresses.status().getPort() + "/status.json")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(status.body()).contains("\"deletionsPending\":1").contains("\"qosQueueLength\":0")
                        .contains(uuid);

                clock.advanceMillis(10_000);
                // The record leaves the queue only after the objects are gone (DeletionQueue.complete): wait for both.
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> !second.store().exists(FILE) && second.deletions().pendingCount() == 0);
                assertThat(read(osd, addresses.rpc(), credentials(uuid))).isEmpty();
            }
        }
    }

    @Test
    void anUnlinkOfAFileThisOsdHoldsNothingOfIsSyncedBeforeALaterWriteStoresData() throws Exception {
        // Proves the cheap (unsynced) unlink path keeps the guarantee: the entry of a file without data here is
        // buffered, a later write (the file is still writable in its grace period) syncs it before storing, and
        // the data written after the unlink is deleted when the entry is due.
        try (FakeDir dir = new FakeDir(); RpcClient rpcClient = new RpcClient("restart-test");
                OsdServer server = newServer(dir)) {
            OsdServiceClient osd = new OsdServiceClient(rpcClient, 10_000);
            InetSocketAddress address = server.start().rpc();
            FileCredentials credentials = credentials(server.uuid());
            RpcClient.await(osd.unlink(address, USER, FileRequest.newBuilder().setCredentials(credentials)
                    .setFileId(FILE).build()));
            assertThat(server.deletions().isPending(FILE)).isTrue();
            assertThat(server.deletions().isUnsynced(FILE)).isTrue();

            RpcClient.await(osd.write(address, USER, WriteRequest.newBuilder().setCredentials(credentials)
                    .setFileId(FILE).build(), Unpooled.wrappedBuffer(new byte[] {9})));
            assertThat(server.deletions().isUnsynced(FILE)).isFalse();
            assertThat(server.store().exists(FILE)).isTrue();

            clock.advanceMillis(10_000);
            // The entry is forgotten (DeletionQueue.completed) just after the batch that removes the file's
            // metadata: between the two, the file is gone and the entry still counted, so wait for both.
            await().atMost(Duration.ofSeconds(10)).until(() -> !server.store().exists(FILE)
                    && server.deletions().pendingCount() == 0);
        }
    }
}
