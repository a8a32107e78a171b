package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.rpc.FrameLimits;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.rpc.ServiceAddress;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.rpc.ErrorType;

/**
 * A mixed cluster: the DIR and osd0 speak TLS, the MRC and osd1 plain TCP (they trust the CA for their calls to the
 * TLS servers). Every server registers the scheme it speaks; every caller (the Java client; the MRC and the OSDs at
 * the DIR; the OSDs at the MRC for their XLoc views; a chain head forwarding to its successor) speaks each server's
 * own scheme. The Java client writes and reads a file striped over both OSDs and a file replicated on both, and both
 * replicas hold the bytes; a client without a TLS configuration is refused at once, naming the DIR.
 */
class MixedTlsClusterTest {
    private static final int OBJECT = Volumes.OBJECT_SIZE_BYTES;

    @Test
    void tlsAndPlainServersServeOneClusterAndClientsSpeakEachServersScheme() throws Exception {
        try (TestCluster cluster = TestCluster.startMixedTls(2, Set.of("mrc", "osd1"));
                Client client = cluster.client()) {
            // Registrations reached the TLS DIR from the plain MRC and OSD too, each with the scheme it serves.
            assertThat(cluster.dirAddress()).isInstanceOfSatisfying(ServiceAddress.class,
                    dir -> assertThat(dir.scheme()).isEqualTo(RpcScheme.PBRPCS));
            String mrcUuid = cluster.launcher().uuid("mrc");
            List<String> osds = cluster.osdUuids();
            try (RpcClient rpc = new RpcClient("mixed-probe", FrameLimits.DEFAULT, RpcClient.CONNECT_TIMEOUT_MS_DEFAULT,
                    cluster.launcher().clientTls())) {
                DirServiceClient dir = new DirServiceClient(rpc, cluster.dirAddress(), 10_000);
                assertThat(protocols(dir, mrcUuid)).containsExactly("pbrpc");
                assertThat(protocols(dir, osds.get(0))).containsExactly("pbrpcs");
                assertThat(protocols(dir, osds.get(1))).containsExactly("pbrpc");
            }
            assertThat(client.resolve(osds.get(0)))
                    .hasToString("pbrpcs://127.0.0.1:" + cluster.mappedPort(osds.get(0)));
            assertThat(client.resolve(osds.get(1)))
                    .hasToString("pbrpc://127.0.0.1:" + cluster.mappedPort(osds.get(1)));

            create(client, "striped", 2, 1);
            byte[] striped = randomBytes(3 * OBJECT + 4_321, 1);
            Volume stripedVolume = client.openVolume("striped");
            try (FileHandle file = stripedVolume.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                assertThat(file.stripeOsdUuids()).containsExactlyInAnyOrderElementsOf(osds);
                file.write(0, striped);
                file.fsync();
            }
            try (Client fresh = cluster.client();
                    FileHandle file = fresh.openVolume("striped").open("/f", OpenFlags.O_RDONLY, 0)) {
                assertThat(file.read(0, striped.length)).as("read back across a TLS and a plain OSD")
                        .isEqualTo(striped);
            }

            create(client, "chain", 1, 2);
            byte[] replicated = randomBytes(2 * OBJECT + 99, 2);
            FileCredentials credentials;
            try (FileHandle file = client.openVolume("chain").open("/r", OpenFlags.O_CREAT | OpenFlags.O_RDWR,
                    0644)) {
                assertThat(file.credentials().getXlocs().getReplicasCount()).isEqualTo(2);
                file.write(0, replicated);
                file.fsync();
                credentials = file.credentials();
            }
            // The head forwarded every write to its successor across the two schemes: each replica, asked on its
            // own, holds the bytes.
            for (String osd : osds) {
                assertThat(readReplica(cluster, client, credentials, osd, replicated.length))
                        .as("the replica on %s", osd).isEqualTo(replicated);
            }
            try (FileHandle file = client.openVolume("chain").open("/r", OpenFlags.O_RDONLY, 0)) {
                assertThat(file.read(0, replicated.length)).isEqualTo(replicated);
            }

            try (Client withoutTls = Client.connect(cluster.dirAddress(), ClientOptions.builder().retryWindowMs(0)
                    .build())) {
                long startNanos = System.nanoTime();
                assertThatThrownBy(withoutTls::listVolumes).isInstanceOfSatisfying(XtreemFSException.class,
                        error -> assertThat(error.errorType()).isEqualTo(ErrorType.AUTH_FAILED))
                        .hasMessageContaining(cluster.dirAddress().toString())
                        .hasMessageContaining("no TLS configuration");
                assertThat(System.nanoTime() - startNanos).as("at once, not after a timeout")
                        .isLessThan(java.util.concurrent.TimeUnit.SECONDS.toNanos(5));
            }
        }
    }

    private static List<String> protocols(DirServiceClient dir, String uuid) throws Exception {
        return RpcClient.await(dir.addressMappingsGet(uuid)).getMappingsList().stream()
                .map(AddressMapping::getProtocol).toList();
    }

    private static void create(Client client, String name, int width, int replicas) throws XtreemFSException {
        client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName(name).setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                        .setObjectSizeBytes(OBJECT).setWidth(width))
                .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(replicas))
                .build());
    }

    private static byte[] randomBytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** The file's bytes as one replica serves them (any member of a filled chain serves reads), by the OSD's scheme. */
    private static byte[] readReplica(TestCluster cluster, Client client, FileCredentials credentials, String osdUuid,
            int length) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (RpcClient rpc = new RpcClient("replica-reader", FrameLimits.DEFAULT, RpcClient.CONNECT_TIMEOUT_MS_DEFAULT,
                cluster.launcher().clientTls())) {
            OsdServiceClient osd = new OsdServiceClient(rpc, 30_000);
            var address = client.resolve(osdUuid);
            for (long object = 0; object * OBJECT < length; object++) {
                try (RpcResponse response = RpcClient.await(osd.read(address, null, ReadRequest.newBuilder()
                        .setCredentials(credentials).setFileId(credentials.getXcap().getFileId())
                        .setObjectNumber(object).setOffset(0)
                        .setLength((int) Math.min(OBJECT, length - object * OBJECT)).build()))) {
                    bytes.write(response.dataBytes());
                }
            }
        }
        return bytes.toByteArray();
    }
}
