package org.xtreemfs.dir;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.ErrorType;

class DirOverloadTest {
    @TempDir
    Path folder;

    // With a registry queue of one, a burst of synced volume registrations is partly refused with OVERLOADED
    // naming the setting; every call is answered, the accepted ones took effect, and the DIR keeps serving.
    @Test
    void fullRegistryQueueAnswersOverloaded() throws Exception {
        DirConfig config = DirConfig.forTesting(folder.resolve("db"),
                Map.of(DirConfig.REGISTRY_QUEUE_CAPACITY.key(), "1"));
        try (DirServer server = new DirServer(config); RpcClient rpcClient = new RpcClient("overload-test")) {
            DirServiceClient dir = new DirServiceClient(rpcClient, server.start().rpc(), 30_000);
            List<CompletableFuture<Empty>> calls = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                calls.add(dir.volumeRegister(DirServerTest.volume("id-" + i, "volume-" + i)));
            }
            int accepted = 0;
            List<RpcException> refused = new ArrayList<>();
            for (CompletableFuture<Empty> call : calls) {
                try {
                    RpcClient.await(call);
                    accepted++;
                } catch (RpcException e) {
                    refused.add(e);
                }
            }
            assertThat(refused).isNotEmpty().allSatisfy(e -> {
                assertThat(e.errorType()).isEqualTo(ErrorType.OVERLOADED);
                assertThat(e).hasMessageContaining("dir.registry.queueCapacity");
            });
            assertThat(RpcClient.await(dir.volumeList()).getVolumesCount()).isEqualTo(accepted);
        }
    }
}
