package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.rpc.MessageType;
import org.xtreemfs.interfaces.rpc.RequestHeader;
import org.xtreemfs.interfaces.rpc.RpcHeader;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Replies a connection does not take stay bounded in bytes: the server stops reading a connection whose unsent
 * replies reach the pause bound, resumes when they drain, and closes one that passes the close bound; other
 * clients are served throughout. Clients here are raw sockets so that "never reads" is really never.
 */
class RpcBackpressureTest {
    private static final int INTERFACE = 78;
    private static final int BIG_REPLY = 1;
    private static final int REPLY_BYTES = 64 * 1024;

    private final AtomicInteger received = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    /** Replies wait for this; tests that do not hold them back open it at once. */
    private volatile CountDownLatch repliesReleased = new CountDownLatch(0);
    private final ExecutorService answering = Executors.newSingleThreadExecutor();
    private RpcServer server;
    private RpcClient client;

    private InetSocketAddress start(RpcServer.ReplyBufferLimits limits) throws InterruptedException {
        server = RpcServer.builder("backpressure", new InetSocketAddress("127.0.0.1", 0))
                .replyBufferLimits(limits)
                .handle(INTERFACE, BIG_REPLY, call -> {
                    UserCredentials request = call.request(UserCredentials.parser());
                    received.incrementAndGet();
                    // Answered from another thread, as the servers' stages do: requests keep being read while
                    // their replies are produced, so a connection can accept far more than its replies' bound.
                    answering.execute(() -> {
                        awaitQuietly(repliesReleased);
                        answered.incrementAndGet();
                        call.respond(request, Unpooled.wrappedBuffer(new byte[REPLY_BYTES]));
                    });
                })
                .build();
        client = new RpcClient("well-behaved");
        return server.start();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        repliesReleased.countDown();
        answering.shutdownNow();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One request frame, as RpcClient would send it. */
    private static byte[] request(int callId) {
        RpcHeader header = RpcHeader.newBuilder().setCallId(callId).setMessageType(MessageType.REQUEST)
                .setRequestHeader(RequestHeader.newBuilder().setInterfaceId(INTERFACE).setProcedureId(BIG_REPLY)
                        .setUserCredentials(UserCredentials.getDefaultInstance()).setTimeoutMs(60_000))
                .build();
        ByteBuf frame = RecordEncoder.encode(UnpooledByteBufAllocator.DEFAULT, header,
                UserCredentials.newBuilder().setUsername("u" + callId).build(), null);
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }

    private void assertAnotherClientIsServed(InetSocketAddress address) throws Exception {
        UserCredentials answer = RpcClient.await(client.callParsed(address, INTERFACE, BIG_REPLY, null,
                UserCredentials.newBuilder().setUsername("other").build(), UserCredentials.parser(), 5_000));
        assertThat(answer.getUsername()).isEqualTo("other");
    }

    @Test
    void aClientThatNeverReadsIsClosedPastTheBoundAndOthersAreServed() throws Exception {
        InetSocketAddress address = start(new RpcServer.ReplyBufferLimits(128 * 1024, 256 * 1024, 4L << 20));
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(address);
            OutputStream out = socket.getOutputStream();
            // 2,000 requests whose replies (125 MiB) are held back until all were read, as when a stage is
            // slower than the network: then the replies come and the client takes none of them.
            repliesReleased = new CountDownLatch(1);
            for (int callId = 1; callId <= 2_000; callId++) {
                out.write(request(callId));
            }
            out.flush();
            await().atMost(Duration.ofSeconds(20)).until(() -> received.get() == 2_000);
            repliesReleased.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.unreadReplyClosures() == 1);
            assertAnotherClientIsServed(address);
            // The closed connection's replies are gone: reading it now ends (EOF or reset) before 2,000 replies.
            socket.setSoTimeout(10_000);
            assertThat(replyCountUntilClosed(socket.getInputStream())).isLessThan(2_000);
        }
    }

    @Test
    void aSlowReaderIsPausedNotClosedAndGetsEveryReply() throws Exception {
        InetSocketAddress address = start(new RpcServer.ReplyBufferLimits(128 * 1024, 256 * 1024, 64L << 20));
        int requests = 300;  // 18.75 MiB of replies: more than the socket buffers, less than the close bound
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(address);
            OutputStream out = socket.getOutputStream();
            for (int callId = 1; callId <= requests; callId++) {
                out.write(request(callId));
            }
            out.flush();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.readPauses() >= 1);
            assertAnotherClientIsServed(address);
            socket.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int reply = 0; reply < requests; reply++) {
                assertThat(readReplyDataBytes(in)).isEqualTo(REPLY_BYTES);
            }
            // Reading resumed: one more request is answered on the same connection.
            out.write(request(requests + 1));
            out.flush();
            assertThat(readReplyDataBytes(in)).isEqualTo(REPLY_BYTES);
        }
        assertThat(server.unreadReplyClosures()).isZero();
        assertThat(answered.get()).isEqualTo(requests + 2);
    }

    /** Reads one reply frame and returns its data segment's length. */
    private static int readReplyDataBytes(DataInputStream in) throws IOException {
        int headerLength = in.readInt();
        int messageLength = in.readInt();
        int dataLength = in.readInt();
        in.skipNBytes((long) headerLength + messageLength + dataLength);
        return dataLength;
    }

    private static int replyCountUntilClosed(InputStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream);
        int replies = 0;
        try {
            while (replies < 2_000) {
                readReplyDataBytes(in);
                replies++;
            }
        } catch (java.io.EOFException | SocketException closed) {
            // the server closed the connection
        }
        return replies;
    }
}
