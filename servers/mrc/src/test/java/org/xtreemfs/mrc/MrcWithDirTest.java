package org.xtreemfs.mrc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.dir.DirConfig;
import org.xtreemfs.dir.DirServer;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.MrcServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.common.OsdVolumeAttainment;
import org.xtreemfs.interfaces.common.VolumeAttainmentReport;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.interfaces.mrc.QosStatusRequest;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;
import org.xtreemfs.interfaces.mrc.StatvfsResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.interfaces.rpc.UserCredentials;

class MrcWithDirTest {
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("u").setUid(500)
            .setGid(500).build();
    /**
     * One HTTP client for every fetch, made before any wait: the JVM's first HttpClient initialises the default TLS
     * context (reads and parses the JDK's CA certificates) even for plain http, and each new client starts a
     * selector thread and opens a connection of its own. Made inside a wait, per poll, that CPU work counted against
     * the wait's bound: on a starved JVM (nice 19 at load 35) one wait of 10 s once ran out.
     */
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path folder;
    private DirServer dir;
    private MrcServer mrc;
    private RpcClient rpcClient;
    private DirServiceClient dirClient;
    private MrcServiceClient mrcClient;

    @BeforeEach
    void start() throws Exception {
        dir = new DirServer(DirConfig.load(null, Map.of("dir.bindAddress", "127.0.0.1", "dir.port", "0",
                "dir.status.port", "0", "dir.database.path", folder.resolve("dir").toString())));
        InetSocketAddress dirAddress = dir.start().rpc();
        rpcClient = new RpcClient("test");
        dirClient = new DirServiceClient(rpcClient, dirAddress, 10_000);
        for (String uuid : new String[] {"osd-a", "osd-b", "osd-c"}) {
            RpcClient.await(dirClient.serviceRegister(Service.newBuilder().setType(ServiceType.SERVICE_TYPE_OSD)
                    .setUuid(uuid).setName(uuid).setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                    .setOsdAttributes(OsdAttributes.newBuilder().setUsageType(OsdUsageType.OSD_BEST_EFFORT)
                            .setFreeBytes(4L << 30).setTotalBytes(8L << 30))
                    .build()));
        }
        mrc = new MrcServer(MrcConfig.of(Map.of("mrc.bindAddress", "127.0.0.1", "mrc.port", "0",
                "mrc.status.port", "0", "mrc.database.path", folder.resolve("mrc").toString(),
                "mrc.dir.address", "127.0.0.1:" + dirAddress.getPort(), "capability.secret", "mrc-with-dir-test")));
        mrc.start();
        mrcClient = new MrcServiceClient(rpcClient, 10_000);
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        mrc.close();
        dir.close();
    }

    @Test
    void clientsFindTheVolumesMrcThroughTheDirAndFilesLandOnItsOsds() throws Exception {
        // A volume created at the MRC is registered at the real DIR, whose mappings resolve to the MRC;
        // new files are striped over the OSDs registered at that DIR; statvfs sums their space.
        Volume created = RpcClient.await(mrcClient.volumeCreate(mrc.address(), USER, VolumeCreateRequest.newBuilder()
                .setVolume(Volume.newBuilder().setName("demo").setDefaultStripingPolicy(
                        StripingPolicy.newBuilder().setWidth(3))).build()));
        VolumeRegistration registration = RpcClient.await(dirClient.volumeGet("demo"));
        assertThat(registration.getVolumeId()).isEqualTo(created.getId());
        assertThat(registration.getMrcUuid()).isEqualTo(mrc.uuid());
        UuidResolver resolver = new UuidResolver(dirClient, 1_000, System::nanoTime);
        InetSocketAddress resolved = RpcClient.await(resolver.resolve(registration.getMrcUuid()));
        assertThat(resolved.getPort()).isEqualTo(mrc.address().getPort());
        OpenResponse opened = RpcClient.await(mrcClient.open(resolved, USER, OpenRequest.newBuilder()
                .setVolumeName("demo").setPath("/file").setMode(0600)
                .setFlags(OpenFlag.O_CREAT_FLAG_VALUE | OpenFlag.O_WRONLY_FLAG_VALUE).build()));
        assertThat(opened.getCredentials().getXlocs().getReplicas(0).getOsdUuidsList())
                .containsExactlyInAnyOrder("osd-a", "osd-b", "osd-c");
        StatvfsResponse statvfs = RpcClient.await(mrcClient.statvfs(resolved, USER,
                VolumeNameRequest.newBuilder().setVolumeName("demo").build()));
        assertThat(statvfs.getTotalBlocks() * statvfs.getBlockSize()).isEqualTo(3 * (8L << 30));
    }

    @Test
    void statusPageShowsVolumesAndCounters() throws Exception {
        // The status page's JSON lists the MRC's uuid, its volumes and per-procedure counters.
        RpcClient.await(mrcClient.volumeCreate(mrc.address(), USER, VolumeCreateRequest.newBuilder()
                .setVolume(Volume.newBuilder().setName("shown")).build()));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            HttpResponse<String> page = HTTP.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + mrc.statusPort() + "/status.json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains(mrc.uuid()).contains("shown").contains("MRC_VOLUME_CREATE");
        });
    }

    @Test
    void attainmentTheOsdsHeartbeatIsSummedPerVolumeOnTheStatusPageAtMetricsAndInQosStatus() throws Exception {
        Volume created = RpcClient.await(mrcClient.volumeCreate(mrc.address(), USER, VolumeCreateRequest.newBuilder()
                .setVolume(Volume.newBuilder().setName("busy")).build()));
        for (String uuid : new String[] {"osd-a", "osd-b"}) {
            VolumeAttainmentReport figures = VolumeAttainmentReport.newBuilder().setVolumeId(created.getId())
                    .setAchievedCostPerSecond(uuid.equals("osd-a") ? 1000 : 500).setQueueDepthRequests(2).build();
            RpcClient.await(dirClient.serviceRegister(Service.newBuilder().setType(ServiceType.SERVICE_TYPE_OSD)
                    .setUuid(uuid).setName(uuid).setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                    .setOsdAttributes(OsdAttributes.newBuilder().setUsageType(OsdUsageType.OSD_BEST_EFFORT)
                            .setFreeBytes(4L << 30).setTotalBytes(8L << 30)
                            .setVolumeAttainment(OsdVolumeAttainment.newBuilder().setCostUnit("bytes")
                                    .addVolumes(figures)))
                    .build()));
        }
        VolumeAttainment summed = RpcClient.await(mrcClient.qosStatus(mrc.address(), USER,
                QosStatusRequest.newBuilder().setVolumeName("busy").build())).getVolumes(0);
        assertThat(summed.getVolumeName()).isEqualTo("busy");
        assertThat(summed.getAchievedCostPerSecond()).isEqualTo(1500.0);
        assertThat(summed.getQueueDepthRequests()).isEqualTo(4);
        assertThat(summed.getOsdsCount()).isEqualTo(2);
        // The page reads the OSD list the MRC caches (refreshed in the background), so the sum shows soon.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String json = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + mrc.statusPort()
                    + "/status.json")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(json).contains("\"volumeAttainment\"").contains("\"achievedCostPerSecond\":1500.0");
            String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + mrc.statusPort()
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("xtreemfs_mrc_volume_achieved_cost_per_second{cost_unit=\"bytes\",volume=\""
                    + created.getId() + "\",volume_name=\"busy\"} 1500.0");
        });
    }
}
