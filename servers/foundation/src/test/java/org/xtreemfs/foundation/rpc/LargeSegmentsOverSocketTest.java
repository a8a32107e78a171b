package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Large data segments over a real connection, where the socket reads them into their buffers in place (RecordDecoder's
 * receive allocator; the server's native epoll transport and the client's NIO one): many in flight at once, of sizes
 * on both sides of the own-buffer threshold and of the pooled size classes, mixed with small calls, each echoed back
 * whole, so neither side's reads ever run past a segment into the next record.
 */
class LargeSegmentsOverSocketTest {
    private static final int INTERFACE = 78;
    private static final int ECHO = 1;

    @Test
    void manyLargeSegmentsInFlightArriveWholeBothWays() throws Exception {
        try (RpcServer server = RpcServer.builder("echo", new InetSocketAddress("127.0.0.1", 0))
                .frameLimits(new FrameLimits(1024, 1024, 2 << 20))
                .handle(INTERFACE, ECHO, call -> {
                    UserCredentials request = call.request(UserCredentials.parser());
                    byte[] data = new byte[call.data().readableBytes()];
                    call.data().getBytes(call.data().readerIndex(), data);
                    call.respond(request, Unpooled.wrappedBuffer(data));
                })
                .build();
                RpcClient client = new RpcClient("test")) {
            InetSocketAddress address = server.start();
            SplittableRandom random = new SplittableRandom(11);
            int[] lengths = {RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN - 1, RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN,
                    RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN + 1, 1 << 20, (1 << 20) + 4096, 2 << 20, 300_001, 17};
            for (int round = 0; round < 3; round++) {
                List<byte[]> payloads = new ArrayList<>();
                List<CompletableFuture<RpcResponse>> calls = new ArrayList<>();
                for (int i = 0; i < 48; i++) {
                    byte[] payload = new byte[lengths[random.nextInt(lengths.length)]];
                    random.nextBytes(payload);
                    payloads.add(payload);
                    calls.add(client.call(address, INTERFACE, ECHO, null, UserCredentials.newBuilder()
                            .setUsername("r" + round + "c" + i).build(), Unpooled.wrappedBuffer(payload), 30_000));
                }
                for (int i = 0; i < calls.size(); i++) {
                    try (RpcResponse response = RpcClient.await(calls.get(i))) {
                        assertThat(response.message(UserCredentials.parser()).getUsername())
                                .isEqualTo("r" + round + "c" + i);
                        assertThat(response.dataBytes()).as("round %d call %d", round, i).isEqualTo(payloads.get(i));
                    }
                }
            }
            assertThat(server.malformedFrames()).isZero();
        }
    }
}
