package org.xtreemfs.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.common.DeviceClass;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.VolumeRegistration;
import org.xtreemfs.interfaces.rpc.ErrorType;

class DirServerTest {
    private static final long TIMEOUT_MS = 10_000;

    @TempDir
    Path folder;

    private final ManualClock clock = new ManualClock();
    private final RpcClient rpcClient = new RpcClient("dir-test");
    private DirServer server;
    private DirServer.Addresses addresses;
    private DirServiceClient dir;

    @BeforeEach
    void start() throws Exception {
        server = new DirServer(DirConfig.forTesting(folder.resolve("db"),
                Map.of(DirConfig.HEARTBEAT_TIMEOUT_MS.key(), Long.toString(TIMEOUT_MS))), clock);
        addresses = server.start();
        dir = new DirServiceClient(rpcClient, addresses.rpc(), 5_000);
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        server.close();
    }

    static Service osd(String uuid) {
        return Service.newBuilder().setType(ServiceType.SERVICE_TYPE_OSD).setUuid(uuid).setName("osd-" + uuid)
                .setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .setOsdAttributes(OsdAttributes.newBuilder().setUsageType(OsdUsageType.OSD_RANDOM)
                        .setDeviceClass(DeviceClass.SSD).setFreeBytes(3L << 30).setTotalBytes(8L << 30)
                        .setLoadPercent(42))
                .build();
    }

    static AddressMappingSet mapping(String uuid, int port) {
        return AddressMappingSet.newBuilder().addMappings(AddressMapping.newBuilder().setUuid(uuid)
                .setProtocol("pbrpc").setAddress("127.0.0.1").setPort(port).setMatchNetwork("*")).build();
    }

    // A service registered over RPC is found by type, uuid and name, and its mapping resolves through UuidResolver.
    @Test
    void registeredServiceIsFoundAndResolvable() throws Exception {
        assertThat(RpcClient.await(dir.serviceRegister(osd("osd-1"))).getVersion()).isEqualTo(1);
        assertThat(RpcClient.await(dir.serviceRegister(osd("osd-1"))).getVersion()).isEqualTo(2);
        assertThat(RpcClient.await(dir.addressMappingsSet(mapping("osd-1", 32640))).getVersion()).isEqualTo(1);

        Service found = RpcClient.await(dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, false)).getServices(0);
        assertThat(found.getUuid()).isEqualTo("osd-1");
        assertThat(found.getLastHeartbeatMs()).isEqualTo(clock.wallClockMillis());
        assertThat(found.getOsdAttributes().getLoadPercent()).isEqualTo(42);
        assertThat(RpcClient.await(dir.serviceGetByUuid("osd-1")).getServicesList()).containsExactly(found);
        assertThat(RpcClient.await(dir.serviceGetByName("osd-osd-1")).getServicesList()).containsExactly(found);
        assertThat(RpcClient.await(dir.serviceGetByUuid("nobody")).getServicesCount()).isZero();

        UuidResolver resolver = new UuidResolver(dir, 1_000, clock::monotonicNanos);
        assertThat(resolver.resolve("osd-1").get()).isEqualTo(new InetSocketAddress("127.0.0.1", 32640));
    }

    // Through RPC, a silent service turns DEAD after the timeout and leaves get-by-type unless include_dead.
    @Test
    void silentServiceIsReportedDead() throws Exception {
        RpcClient.await(dir.serviceRegister(osd("osd-1")));
        clock.advanceMillis(TIMEOUT_MS + 1);
        assertThat(RpcClient.await(dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, false)).getServicesCount())
                .isZero();
        assertThat(RpcClient.await(dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, true)).getServices(0)
                .getStatus()).isEqualTo(ServiceStatus.SERVICE_STATUS_DEAD);

        RpcClient.await(dir.serviceOffline("osd-1"));
        assertThat(RpcClient.await(dir.serviceGetByUuid("osd-1")).getServices(0).getStatus())
                .isEqualTo(ServiceStatus.SERVICE_STATUS_OFFLINE);
        RpcClient.await(dir.serviceDeregister("osd-1"));
        assertThat(RpcClient.await(dir.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, true)).getServicesCount())
                .isZero();
    }

    // Volume calls: register, get, list, EEXIST on a taken name, ENOENT naming an unknown volume.
    @Test
    void volumeRegistryOverRpc() throws Exception {
        RpcClient.await(dir.volumeRegister(volume("id-1", "data")));
        RpcClient.await(dir.volumeRegister(volume("id-2", "home")));
        assertThat(RpcClient.await(dir.volumeGet("data")).getVolumeId()).isEqualTo("id-1");
        assertThat(RpcClient.await(dir.volumeList()).getVolumesList()).extracting(VolumeRegistration::getVolumeName)
                .containsExactly("data", "home");

        RpcException taken = catchRpc(() -> RpcClient.await(dir.volumeRegister(volume("id-3", "data"))));
        assertThat(taken.errorType()).isEqualTo(ErrorType.ERRNO);
        assertThat(taken.posixErrno()).isEqualTo(Errno.EEXIST);
        assertThat(taken).hasMessageContaining("'data'");

        RpcClient.await(dir.volumeDeregister("data"));
        RpcException unknown = catchRpc(() -> RpcClient.await(dir.volumeGet("data")));
        assertThat(unknown.errorType()).isEqualTo(ErrorType.ERRNO);
        assertThat(unknown.posixErrno()).isEqualTo(Errno.ENOENT);
        assertThat(unknown).hasMessageContaining("'data'");
        assertThat(catchRpc(() -> RpcClient.await(dir.volumeDeregister("data"))).posixErrno()).isEqualTo(Errno.ENOENT);
    }

    // Malformed requests come back as INVALID_ARGS naming the bad value; the server keeps answering.
    @Test
    void malformedRequestsAreInvalidArguments() throws Exception {
        RpcException noType = catchRpc(() -> RpcClient.await(dir.serviceRegister(
                osd("osd-1").toBuilder().setType(ServiceType.SERVICE_TYPE_UNSPECIFIED).build())));
        assertThat(noType.errorType()).isEqualTo(ErrorType.INVALID_ARGS);
        assertThat(noType).hasMessageContaining("'osd-1'");
        RpcException badName = catchRpc(() -> RpcClient.await(dir.volumeRegister(volume("id", "a/b"))));
        assertThat(badName.errorType()).isEqualTo(ErrorType.INVALID_ARGS);
        assertThat(badName).hasMessageContaining("'a/b'");
        RpcClient.await(dir.ping());
    }

    // The status page lists services with status and OSD attributes and volumes, as HTML and as JSON.
    @Test
    void statusPageListsServicesAndVolumes() throws Exception {
        RpcClient.await(dir.serviceRegister(osd("osd-7")));
        RpcClient.await(dir.addressMappingsSet(mapping("osd-7", 40000)));
        RpcClient.await(dir.volumeRegister(volume("id-1", "data<&>")));
        clock.advanceMillis(2_500);

        String page = httpGet("/");
        assertThat(page).contains("osd-7", "AVAILABLE", "2.5 s ago", "OSD_RANDOM", "SSD", "3072 MiB / 8192 MiB",
                "42 %", "pbrpc://127.0.0.1:40000", "data&lt;&amp;&gt;");
        String json = httpGet("/status.json");
        assertThat(json).contains("\"uuid\":\"osd-7\"", "\"status\":\"AVAILABLE\"", "\"heartbeatAgeMs\":2500",
                "\"freeBytes\":3221225472", "\"name\":\"data<&>\"", "\"mrcUuid\":\"mrc-1\"");

        clock.advanceMillis(TIMEOUT_MS);
        assertThat(httpGet("/status.json")).contains("\"status\":\"DEAD\"");
    }

    private String httpGet(String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + addresses.status().getPort() + path);
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    static VolumeRegistration volume(String id, String name) {
        return VolumeRegistration.newBuilder().setVolumeId(id).setVolumeName(name).setMrcUuid("mrc-1").build();
    }

    interface RpcCallable {
        void call() throws RpcException;
    }

    static RpcException catchRpc(RpcCallable call) {
        try {
            call.call();
        } catch (RpcException e) {
            return e;
        }
        throw new AssertionError("call succeeded but should have failed");
    }

    // A second start on a running server is a bug and says so.
    @Test
    void startingTwiceIsRefused() {
        assertThatThrownBy(() -> server.start()).isInstanceOf(IllegalStateException.class);
    }
}
