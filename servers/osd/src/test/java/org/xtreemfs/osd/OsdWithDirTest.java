package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.dir.DirConfig;
import org.xtreemfs.dir.DirServer;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.common.DeviceClass;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceSet;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;

class OsdWithDirTest {
    @TempDir
    Path folder;

    @Test
    void anOsdRegistersAtARealDirAndItsUuidResolvesToItsPort() throws Exception {
        // Proves heartbeat, address mapping and the goodbye on close work against the real DIR.
        DirConfig dirConfig = DirConfig.load(null, Map.of("dir.bindAddress", "127.0.0.1", "dir.port", "0",
                "dir.status.port", "0", "dir.database.path", folder.resolve("dir").toString()));
        try (DirServer dir = new DirServer(dirConfig); RpcClient rpcClient = new RpcClient("osd-with-dir-test")) {
            String dirHostPort = "127.0.0.1:" + dir.start().rpc().getPort();
            try (OsdServer osd = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(folder.resolve("osd"),
                    dirHostPort, "", "with-dir-secret", Map.of("osd.heartbeat.periodMs", "100",
                            "osd.usage.type", "sequential", "osd.device.class", "hdd"))))) {
                int osdPort = osd.start().rpc().getPort();
                DirServiceClient dirClient = new DirServiceClient(rpcClient,
                        new java.net.InetSocketAddress("127.0.0.1", dir.addresses().rpc().getPort()), 10_000);
                await().atMost(Duration.ofSeconds(10)).until(() -> RpcClient.await(
                        dirClient.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, false)).getServicesCount() == 1);
                ServiceSet osds = RpcClient.await(dirClient.serviceGetByType(ServiceType.SERVICE_TYPE_OSD, false));
                Service service = osds.getServices(0);
                assertThat(service.getUuid()).isEqualTo(osd.uuid());
                assertThat(service.getStatus()).isEqualTo(ServiceStatus.SERVICE_STATUS_AVAILABLE);
                assertThat(service.getOsdAttributes().getUsageType()).isEqualTo(OsdUsageType.OSD_SEQUENTIAL);
                assertThat(service.getOsdAttributes().getDeviceClass()).isEqualTo(DeviceClass.HDD);
                assertThat(service.getOsdAttributes().getFreeBytes()).isPositive();
                UuidResolver resolver = new UuidResolver(dirClient, 60_000, System::nanoTime);
                assertThat(resolver.resolve(osd.uuid()).get().getPort()).isEqualTo(osdPort);
                osd.close();
                assertThat(RpcClient.await(dirClient.serviceGetByUuid(osd.uuid())).getServices(0).getStatus())
                        .isEqualTo(ServiceStatus.SERVICE_STATUS_OFFLINE);
            }
        }
    }
}
