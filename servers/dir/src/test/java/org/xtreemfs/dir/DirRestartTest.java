package org.xtreemfs.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.VolumeRegistrationSet;

class DirRestartTest {
    @TempDir
    Path folder;

    // Services, address mappings, versions and volumes written before close are read back by a DIR restarted on the same folder.
    @Test
    void everythingSurvivesARestart() throws Exception {
        ManualClock clock = new ManualClock();
        DirConfig config = DirConfig.forTesting(folder.resolve("db"));
        Service registered;
        AddressMappingSet mappings;
        VolumeRegistrationSet volumes;
        try (RpcClient rpcClient = new RpcClient("restart-test")) {
            try (DirServer first = new DirServer(config, clock)) {
                DirServiceClient dir = new DirServiceClient(rpcClient, first.start().rpc(), 5_000);
                RpcClient.await(dir.serviceRegister(DirServerTest.osd("osd-1")));
                RpcClient.await(dir.serviceRegister(DirServerTest.osd("osd-1")));
                RpcClient.await(dir.serviceRegister(Service.newBuilder().setType(ServiceType.SERVICE_TYPE_MRC)
                        .setUuid("mrc-1").setName("mrc").build()));
                RpcClient.await(dir.serviceOffline("mrc-1"));
                RpcClient.await(dir.addressMappingsSet(DirServerTest.mapping("osd-1", 32640)));
                RpcClient.await(dir.volumeRegister(DirServerTest.volume("id-1", "data")));
                RpcClient.await(dir.volumeRegister(DirServerTest.volume("id-2", "home")));
                registered = RpcClient.await(dir.serviceGetByUuid("osd-1")).getServices(0);
                mappings = RpcClient.await(dir.addressMappingsGet("osd-1"));
                volumes = RpcClient.await(dir.volumeList());
            }
            clock.advanceMillis(1_000);
            try (DirServer second = new DirServer(config, clock)) {
                DirServiceClient dir = new DirServiceClient(rpcClient, second.start().rpc(), 5_000);
                assertThat(RpcClient.await(dir.serviceGetByUuid("osd-1")).getServices(0)).isEqualTo(registered);
                assertThat(RpcClient.await(dir.serviceGetByUuid("mrc-1")).getServices(0).getStatus())
                        .isEqualTo(ServiceStatus.SERVICE_STATUS_OFFLINE);
                assertThat(RpcClient.await(dir.addressMappingsGet("osd-1"))).isEqualTo(mappings);
                assertThat(RpcClient.await(dir.volumeList())).isEqualTo(volumes);
                assertThat(volumes.getVolumesCount()).isEqualTo(2);
                assertThat(RpcClient.await(dir.serviceRegister(DirServerTest.osd("osd-1"))).getVersion())
                        .isEqualTo(3);
            }
        }
    }

    // A start that fails on a busy status port closes what it opened, so the same database folder can be opened again.
    @Test
    void failedStartReleasesTheDatabase() throws Exception {
        Path database = folder.resolve("db");
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            DirConfig clashing = DirConfig.forTesting(database,
                    Map.of(DirConfig.STATUS_PORT.key(), Integer.toString(busy.getLocalPort())));
            try (DirServer server = new DirServer(clashing)) {
                assertThatThrownBy(server::start).isInstanceOf(IOException.class);
            }
        }
        try (DirServer server = new DirServer(DirConfig.forTesting(database))) {
            assertThat(server.start().rpc().getPort()).isPositive();
        }
    }
}
