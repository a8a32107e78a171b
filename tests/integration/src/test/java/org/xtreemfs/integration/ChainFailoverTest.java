package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.tools.XtfsutilMain;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Failure and re-formation of a three-OSD chain, servers as processes: kill -9 of the head, of the middle and of
 * the tail during a write load (24 pieces of 32 KiB, the kill after 8), two fixed seeds each. The writer reports the member it cannot reach (or that a
 * member names unreachable), the MRC removes it once the DIR shows it dead (here after 1.5 s without a heartbeat)
 * and answers the re-formed chain as XLoc version 2; the writer follows it and finishes with two replicas. Then
 * every acknowledged byte reads back, the two survivors hold identical objects, and the killed OSD, started again
 * on its (now stale) data, refuses requests that carry the old XLoc (XLOC_OUTDATED), while a reader still holding
 * the old XLoc is led to the new tail and reads the last data. At the end no server process of the class is left.
 */
class ChainFailoverTest {
    private static final int PIECE_BYTES = 32 << 10;
    private static final int PIECES = 24;
    private static final int KILL_AFTER_PIECES = 8;
    private static final long DIR_HEARTBEAT_TIMEOUT_MS = 1_500;
    private static final long[] SEEDS = {20261127L, 4242L};

    private static ChainRuns.KillCluster servers;
    private static TestCluster cluster;
    private static Client client;
    private static RpcClient rpc;

    @BeforeAll
    static void startCluster() throws Exception {
        // No periodic recovery check: the killed OSD, restarted, would top its old chain up (ReplicaResumeTest), and
        // this class looks at the short chain and the version-2 XLoc a reader keeps after the restart.
        servers = new ChainRuns.KillCluster(3, Map.of(), Map.of("mrc.placement.osdCacheTtlMs", "100",
                "mrc.recovery.checkPeriodMs", "0"), DIR_HEARTBEAT_TIMEOUT_MS, "chains", 3);
        cluster = servers.cluster;
        client = servers.client;
        rpc = servers.rpc;
    }

    @AfterAll
    static void stopCluster() {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void killDashNineOfTheHeadMakesTheMiddleTheHead() throws Exception {
        for (long seed : SEEDS) {
            killDuringWrites(0, seed);
        }
    }

    @Test
    void killDashNineOfTheMiddleJoinsHeadAndTail() throws Exception {
        for (long seed : SEEDS) {
            killDuringWrites(1, seed);
        }
    }

    @Test
    void killDashNineOfTheTailMakesTheMiddleTheTail() throws Exception {
        for (long seed : SEEDS) {
            killDuringWrites(2, seed);
        }
    }

    private void killDuringWrites(int victimIndex, long seed) throws Exception {
        cluster.awaitServicesAvailable();
        String path = "/replica" + victimIndex + "-" + seed;
        org.xtreemfs.client.Volume volume = client.openVolume("chains");
        FileHandle file = ChainRuns.openWhenPlaceable(volume, path);
        FileCredentials before = file.credentials();
        assertThat(before.getXlocs().getVersion()).isEqualTo(1);
        List<String> chain = ReplicaChain.of(before.getXlocs()).chainAt(0);
        assertThat(chain).hasSize(3);
        String victim = chain.get(victimIndex);
        String victimName = "osd" + cluster.osdUuids().indexOf(victim);
        // A reader that opened before the kill keeps the old XLoc until an OSD refuses it (it knows one piece).
        file.write(0, ChainRuns.piece(seed + 1, 0, PIECE_BYTES));
        file.fsync();
        FileHandle oldReader = volume.open(path, OpenFlags.O_RDONLY, 0);

        PieceWriter writer = PieceWriter.start(file, PIECES, PIECE_BYTES,
                number -> ChainRuns.piece(seed, number, PIECE_BYTES),
                "writer-" + victimIndex + "-" + seed);
        await().atMost(Duration.ofSeconds(60)).until(() -> writer.acknowledged() >= KILL_AFTER_PIECES || writer.done());
        long killedNanos = System.nanoTime();
        cluster.kill(victimName, "KILL");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> file.credentials().getXlocs().getVersion() > 1 || writer.done());
        long reformedAfterMs = (System.nanoTime() - killedNanos) / 1_000_000L;
        int acknowledgedAtReformation = writer.acknowledged();
        assertThat(writer.join(90_000)).isTrue();
        long writtenAfterMs = (System.nanoTime() - killedNanos) / 1_000_000L;
        assertThat(writer.failure()).as("the writer's failure").isNull();
        assertThat(writer.acknowledged()).isEqualTo(PIECES);
        assertThat(acknowledgedAtReformation).as("writes continue after the re-formation").isLessThan(PIECES);
        System.out.printf("ChainFailoverTest: replica %d (%s) killed, chain re-formed %d ms later (DIR heartbeat"
                + " timeout %d ms), all %d pieces written %d ms after the kill (%d before it), load %s%n", victimIndex,
                victim, reformedAfterMs, DIR_HEARTBEAT_TIMEOUT_MS, PIECES, writtenAfterMs, KILL_AFTER_PIECES,
                ChainRuns.loadAverage());
        file.close();

        XLocSet reformed = volume.fileLayout(path).getXlocs();
        assertThat(reformed.getVersion()).isEqualTo(2);
        List<String> survivors = new ArrayList<>(chain);
        survivors.remove(victim);
        assertThat(ReplicaChain.of(reformed).chainAt(0)).as("the chain without the killed member, order kept")
                .containsExactlyElementsOf(survivors);
        // Three OSDs, one dead: no OSD outside the chain for a replacement, so the chain stays short, visibly.
        ToolRun shown = ToolRun.of(new XtfsutilMain(), cluster.dirUrl() + "/chains" + path);
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("version 2, 2 replica(s)").contains("replicas short:")
                .contains("2 of the policy's 3 replicas");

        try (Client fresh = cluster.client();
                FileHandle reader = fresh.openVolume("chains").open(path, OpenFlags.O_RDONLY, 0)) {
            for (int piece = 0; piece < PIECES; piece++) {
                Bytes.assertSameBytes(reader.read((long) piece * PIECE_BYTES, PIECE_BYTES), ChainRuns.piece(seed, piece, PIECE_BYTES));
            }
        }
        String fileId = file.fileId();
        // Read at each survivor (the tail keeps its objects in its log-structured layout, osd.storage.layout=role).
        FileCredentials reformedCredentials = file.credentials();
        assertThat(reformedCredentials.getXlocs().getVersion()).isEqualTo(2);
        long objects = ((long) PIECES * PIECE_BYTES + Volumes.OBJECT_SIZE_BYTES - 1) / Volumes.OBJECT_SIZE_BYTES;
        assertThat(Replicas.objectsReadAt(client, reformedCredentials, survivors.get(1), objects))
                .as("objects of the new tail").usingRecursiveComparison()
                .isEqualTo(Replicas.objectsReadAt(client, reformedCredentials, survivors.get(0), objects));

        // The killed OSD comes back on its stale data: it is not in the current XLoc, so it serves nothing of the file.
        long restartNanos = System.nanoTime();
        servers.restart(victimName);
        System.out.printf("ChainFailoverTest: %s restarted in %d ms%n", victimName,
                (System.nanoTime() - restartNanos) / 1_000_000L);
        servers.assertRefusesOutdated(victimName, before, PIECE_BYTES);
        if (victimIndex == 0) {
            InetSocketAddress victimAddress = new InetSocketAddress("127.0.0.1",
                    cluster.launcher().port(victimName));
            OsdServiceClient osd = new OsdServiceClient(rpc, 10_000);
            UserCredentials user = UserCredentials.newBuilder().setUsername("root").build();
            assertThatThrownBy(() -> RpcClient.await(osd.write(victimAddress, user, WriteRequest.newBuilder()
                    .setCredentials(before).setFileId(fileId).setObjectNumber(0).build(),
                    io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {1}))))
                    .isInstanceOfSatisfying(RpcException.class,
                            refused -> assertThat(refused.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        }
        // A reader holding the old XLoc reads the last data (from the new tail), never the came-back OSD's copy.
        byte[] rewritten = ChainRuns.piece(seed + 2, 0, PIECE_BYTES);
        try (FileHandle rewriter = volume.open(path, OpenFlags.O_RDWR, 0)) {
            rewriter.write(0, rewritten);
        }
        Bytes.assertSameBytes(oldReader.read(0, PIECE_BYTES), rewritten);
        assertThat(oldReader.credentials().getXlocs().getVersion()).isEqualTo(2);
        oldReader.close();
    }
}
