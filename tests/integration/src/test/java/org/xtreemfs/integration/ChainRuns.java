package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.foundation.rpc.FrameLimits;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.ReplicationPolicy;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/** What the kill -9 tests of chains share (ChainFailoverTest, ReplicaRecoveryTest): files, pieces, server processes. */
final class ChainRuns {
    private ChainRuns() {}

    /** Opens (creates) the file once the MRC's OSD list shows enough OSDs again after a restart. */
    static FileHandle openWhenPlaceable(Volume volume, String path) {
        AtomicReference<FileHandle> opened = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
            opened.set(volume.open(path, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644));
            return true;
        });
        return opened.get();
    }

    /** The bytes of piece {@code number} of a run: the same for every run with that seed. */
    static byte[] piece(long seed, int number, int pieceBytes) {
        byte[] bytes = new byte[pieceBytes];
        new Random(seed * 1_000 + number).nextBytes(bytes);
        return bytes;
    }

    /** Pieces 0..pieces-1 of a run, one after the other: what a run with that seed writes. */
    static byte[] pieces(long seed, int pieces, int pieceBytes) {
        byte[] bytes = new byte[pieces * pieceBytes];
        for (int number = 0; number < pieces; number++) {
            System.arraycopy(piece(seed, number, pieceBytes), 0, bytes, number * pieceBytes, pieceBytes);
        }
        return bytes;
    }

    /** /proc/loadavg, printed with every timing (the machine is shared). */
    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /**
     * A process cluster for kill -9 tests of chains: {@code osds} OSDs with {@code osdSettings}, a short DIR heartbeat
     * timeout, one volume of {@code replicas} replicas (width 1, 128 KiB objects), a client that follows chains for
     * 60 s and an RPC client for direct OSD calls; {@link #close} leaves no server process behind.
     */
    static final class KillCluster implements AutoCloseable {
        final TestCluster cluster;
        final Client client;
        final RpcClient rpc;

        KillCluster(int osds, Map<String, String> osdSettings, Map<String, String> mrcSettings,
                long dirHeartbeatTimeoutMs, String volumeName, int replicas) throws Exception {
            cluster = TestCluster.startProcesses(java.util.Collections.nCopies(osds, osdSettings), mrcSettings,
                    Map.of("dir.heartbeat.timeoutMs", Long.toString(dirHeartbeatTimeoutMs)));
            client = cluster.client(ClientOptions.builder().retryWindowMs(60_000));
            client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName(volumeName).setMode(0777)
                    .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                            .setObjectSizeBytes(Volumes.OBJECT_SIZE_BYTES).setWidth(1))
                    .setDefaultReplicationPolicy(ReplicationPolicy.newBuilder().setReplicas(replicas)).build());
            rpc = new RpcClient("kill-cluster-" + volumeName, FrameLimits.DEFAULT,
                    RpcClient.CONNECT_TIMEOUT_MS_DEFAULT, null);
        }

        /** Starts a killed server again on its data and port. */
        void restart(String name) {
            cluster.restart(name);
        }

        /** The OSD {@code name} refuses a read of the file carrying {@code old} credentials with XLOC_OUTDATED. */
        void assertRefusesOutdated(String name, FileCredentials old, int lengthBytes) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", cluster.launcher().port(name));
            OsdServiceClient osd = new OsdServiceClient(rpc, 10_000);
            UserCredentials user = UserCredentials.newBuilder().setUsername("root").build();
            assertThatThrownBy(() -> RpcClient.await(osd.read(address, user, ReadRequest.newBuilder()
                    .setCredentials(old).setFileId(old.getXcap().getFileId()).setObjectNumber(0)
                    .setLength(lengthBytes).build())))
                    .isInstanceOfSatisfying(RpcException.class,
                            refused -> assertThat(refused.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        }

        @Override
        public void close() {
            try {
                client.close();
                rpc.close();
            } finally {
                cluster.closeLeavingNoProcess();
            }
        }
    }
}
