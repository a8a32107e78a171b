package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.MessageType;
import org.xtreemfs.interfaces.rpc.RequestHeader;
import org.xtreemfs.interfaces.rpc.RpcHeader;
import org.xtreemfs.interfaces.rpc.UserCredentials;

class RpcRoundTripTest {
    private static final int INTERFACE = 77;
    private static final int ECHO = 1;
    private static final int FAIL_ERRNO = 2;
    private static final int THROW = 3;
    private static final int NEVER_ANSWER = 4;
    private static final int BLOCK_UNTIL_RELEASED = 5;
    /** Answers the range [offset, offset + length) of {@link #segmentFile} sent from the file (uid: offset, gid: length). */
    private static final int FILE_SEGMENT = 6;
    private static final int SEGMENT_FILE_BYTES = 4 << 20;
    /**
     * Answers with a data segment written in place into a prepared response with room for gid bytes: uid bytes of
     * {@link #preparedByte} (username "discard": the prepared response is closed unsent and the call failed).
     */
    private static final int PREPARED = 7;
    /** As ECHO, answered from one of the {@link #answerers} (as the OSD's storage workers answer). */
    private static final int ECHO_ELSEWHERE = 8;

    @TempDir
    Path folder;
    private FileChannel segmentFile;
    private byte[] segmentFileBytes;
    /** Segments the transport released, and whether any was released twice. */
    private final AtomicInteger segmentsReleased = new AtomicInteger();
    private final AtomicBoolean segmentReleasedTwice = new AtomicBoolean();

    private final CountDownLatch release = new CountDownLatch(1);
    private final ExecutorService answerers = Executors.newFixedThreadPool(4);
    private RpcServer server;
    private RpcClient client;
    private InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        segmentFileBytes = new byte[SEGMENT_FILE_BYTES];
        new Random(6).nextBytes(segmentFileBytes);
        Path file = folder.resolve("segments");
        Files.write(file, segmentFileBytes);
        segmentFile = FileChannel.open(file, StandardOpenOption.READ);
        server = newServer(new InetSocketAddress("127.0.0.1", 0), 10_000);
        address = server.start();
        client = new RpcClient("test");
    }

    private RpcServer newServer(InetSocketAddress bind, int pendingCallsMax) {
        List<RpcCall> parked = new ArrayList<>();
        return RpcServer.builder("echo", bind)
                .pendingCallsMax(pendingCallsMax)
                .frameLimits(new FrameLimits(1024, 1024, 1024 * 1024))
                .handle(INTERFACE, ECHO, call -> {
                    UserCredentials request = call.request(UserCredentials.parser());
                    byte[] data = new byte[call.data().readableBytes()];
                    call.data().getBytes(call.data().readerIndex(), data);
                    call.respond(request, Unpooled.wrappedBuffer(data));
                })
                .handle(INTERFACE, ECHO_ELSEWHERE, call -> {
                    UserCredentials request = call.request(UserCredentials.parser());
                    byte[] data = new byte[call.data().readableBytes()];
                    call.data().getBytes(call.data().readerIndex(), data);
                    answerers.execute(() -> call.respond(request, Unpooled.wrappedBuffer(data)));
                })
                .handle(INTERFACE, FAIL_ERRNO, call -> {
                    throw RpcException.errno(Errno.ENOTEMPTY, "directory /a is not empty");
                })
                .handle(INTERFACE, THROW, call -> {
                    throw new IllegalStateException("bug");
                })
                .handle(INTERFACE, NEVER_ANSWER, call -> {
                    synchronized (parked) {
                        parked.add(call);
                    }
                })
                .handle(INTERFACE, FILE_SEGMENT, call -> {
                    UserCredentials request = call.request(UserCredentials.parser());
                    AtomicBoolean released = new AtomicBoolean();
                    FileSegment segment = new FileSegment(segmentFile, request.getUid(), request.getGid(), () -> {
                        if (!released.compareAndSet(false, true)) {
                            segmentReleasedTwice.set(true);
                        }
                        segmentsReleased.incrementAndGet();
                    });
                    if (request.getUid() % 2 == 0) {
                        call.respond(request, segment); // on the event loop
                    } else {
                        CompletableFuture.runAsync(() -> call.respond(request, segment)); // as a storage thread does
                    }
                })
                .handle(INTERFACE, PREPARED, call -> {
                    UserCredentials request = call.request(UserCredentials.parser());
                    Runnable answer = () -> {
                        try (RpcCall.PreparedResponse response = call.prepareResponse(request, request.getGid())) {
                            java.nio.ByteBuffer target = response.dataTarget();
                            assertThat(target.remaining()).isEqualTo(request.getGid());
                            if (request.getUsername().equals("discard")) {
                                target.put((byte) 1);
                                return; // closed unsent; failed below
                            }
                            for (int i = 0; i < request.getUid(); i++) {
                                target.put(preparedByte(i));
                            }
                            response.send(request.getUid());
                        }
                    };
                    if (request.getUsername().equals("discard")) {
                        answer.run();
                        call.fail(RpcException.errno(Errno.EIO, "read failed after preparing"));
                    } else if (request.getUid() % 2 == 0) {
                        answer.run(); // on the event loop
                    } else {
                        CompletableFuture.runAsync(answer); // as a storage thread does
                    }
                })
                .handle(INTERFACE, BLOCK_UNTIL_RELEASED, call -> {
                    CompletableFuture.runAsync(() -> {
                        try {
                            release.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        call.respond(Empty.getDefaultInstance());
                    });
                })
                .build();
    }

    @AfterEach
    void stop() throws IOException {
        release.countDown();
        answerers.shutdownNow();
        client.close();
        server.close();
        segmentFile.close();
    }

    // Replies whose data segments are sent from a file (sendfile), from the event loop and from other threads, mixed
    // on one connection with replies from buffers: every reply carries exactly its range (nothing of another reply
    // between a record's prefix and its segment), every segment is released exactly once, and the file stays open
    // (it is the segment owner's).
    @Test
    void fileSegmentsArriveWholeAmongOtherRepliesAndAreReleasedOnce() throws Exception {
        Random random = new Random(7);
        List<CompletableFuture<RpcResponse>> segments = new ArrayList<>();
        List<int[]> ranges = new ArrayList<>();
        List<CompletableFuture<UserCredentials>> echoes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            int offset = random.nextInt(SEGMENT_FILE_BYTES / 2);
            int length = 1 + random.nextInt(512 * 1024);
            ranges.add(new int[] {offset, length});
            segments.add(client.call(address, INTERFACE, FILE_SEGMENT, null,
                    UserCredentials.newBuilder().setUsername("s" + i).setUid(offset).setGid(length).build(), null,
                    10_000));
            echoes.add(client.callParsed(address, INTERFACE, ECHO, null, user("e" + i), UserCredentials.parser(),
                    10_000));
        }
        for (int i = 0; i < 200; i++) {
            int[] range = ranges.get(i);
            try (RpcResponse response = RpcClient.await(segments.get(i))) {
                assertThat(response.message(UserCredentials.parser()).getUsername()).isEqualTo("s" + i);
                assertThat(response.dataBytes()).as("segment %d", i)
                        .isEqualTo(Arrays.copyOfRange(segmentFileBytes, range[0], range[0] + range[1]));
            }
            assertThat(RpcClient.await(echoes.get(i)).getUsername()).isEqualTo("e" + i);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(segmentsReleased.get()).isEqualTo(200));
        assertThat(segmentReleasedTwice).isFalse();
        assertThat(segmentFile.isOpen()).isTrue();
    }

    // A segment that cannot be sent whole (its file ends before it: the owner broke its promise) closes the connection
    // instead of sending a record shorter than its framing; the call fails as a transport error, the segment is
    // released, and a new connection is served.
    @Test
    void aSegmentBeyondItsFilesEndClosesTheConnectionAndIsReleased() throws Exception {
        CompletableFuture<RpcResponse> beyond = client.call(address, INTERFACE, FILE_SEGMENT, null,
                UserCredentials.newBuilder().setUsername("beyond").setUid(SEGMENT_FILE_BYTES - 1000).setGid(300_000)
                        .build(), null, 10_000);
        assertThatThrownBy(() -> RpcClient.await(beyond).close()).isInstanceOf(RpcTransportException.class);
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(segmentsReleased.get()).isEqualTo(1));
        assertThat(RpcClient.await(client.callParsed(address, INTERFACE, ECHO, null, user("after"),
                UserCredentials.parser(), 10_000)).getUsername()).isEqualTo("after");
    }

    private static byte preparedByte(int index) {
        return (byte) (index * 31 + 7);
    }

    // Responses whose data the handler writes in place (RpcCall.prepareResponse, as the OSD's object reads do), from
    // the event loop and from other threads, mixed with other replies on one connection: each carries its message and
    // exactly the bytes sent (fewer than the room, none, or all of it), and one closed unsent lets the call be failed.
    @Test
    void preparedResponsesCarryExactlyTheDataWrittenInPlace() throws Exception {
        int[][] cases = {{0, 0}, {0, 4096}, {1, 4096}, {4096, 4096}, {4095, 8192}, {65_536, 65_536}, {3, 100_000}};
        List<CompletableFuture<RpcResponse>> prepared = new ArrayList<>();
        List<CompletableFuture<UserCredentials>> echoes = new ArrayList<>();
        for (int[] sizes : cases) {
            prepared.add(client.call(address, INTERFACE, PREPARED, null, UserCredentials.newBuilder()
                    .setUsername("p" + sizes[0]).setUid(sizes[0]).setGid(sizes[1]).build(), null, 10_000));
            echoes.add(client.callParsed(address, INTERFACE, ECHO, null, user("e" + sizes[0]), UserCredentials.parser(),
                    10_000));
        }
        for (int c = 0; c < cases.length; c++) {
            int written = cases[c][0];
            byte[] expected = new byte[written];
            for (int i = 0; i < written; i++) {
                expected[i] = preparedByte(i);
            }
            try (RpcResponse response = RpcClient.await(prepared.get(c))) {
                assertThat(response.message(UserCredentials.parser()).getUsername()).isEqualTo("p" + written);
                assertThat(response.dataBytes()).as("%d of %d bytes", written, cases[c][1]).isEqualTo(expected);
            }
            assertThat(RpcClient.await(echoes.get(c)).getUsername()).isEqualTo("e" + written);
        }
        assertThatThrownBy(() -> RpcClient.await(client.call(address, INTERFACE, PREPARED, null,
                UserCredentials.newBuilder().setUsername("discard").setUid(1).setGid(4096).build(), null, 10_000)))
                .isInstanceOfSatisfying(RpcException.class, e -> assertThat(e.getMessage())
                        .contains("read failed after preparing"));
        assertEchoWorks();
    }

    // Requests that arrive together (one write of 40 pipelined requests with 4 KiB of data each) are answered on the
    // event loop within one read batch: their replies go out appended in the batch's buffers (160 KiB: more than one
    // ReplyWriter.BATCH_BUFFER_BYTES), each whole, with its own call id, message and data.
    @Test
    void repliesOfRequestsReadTogetherLeaveInTheBatchsBuffersEachWhole() throws Exception {
        int requests = 40;
        java.io.ByteArrayOutputStream frames = new java.io.ByteArrayOutputStream();
        for (int callId = 1; callId <= requests; callId++) {
            RpcHeader header = RpcHeader.newBuilder().setCallId(callId).setMessageType(MessageType.REQUEST)
                    .setRequestHeader(RequestHeader.newBuilder().setInterfaceId(INTERFACE).setProcedureId(ECHO)
                            .setUserCredentials(UserCredentials.getDefaultInstance()).setTimeoutMs(10_000))
                    .build();
            io.netty.buffer.ByteBuf frame = RecordEncoder.encode(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT,
                    header, user("u" + callId), Unpooled.wrappedBuffer(echoData(callId)));
            frames.write(io.netty.buffer.ByteBufUtil.getBytes(frame));
            frame.release();
        }
        long batchedBefore = server.batchedReplies();
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(frames.toByteArray());
            socket.getOutputStream().flush();
            java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
            boolean[] answered = new boolean[requests + 1];
            for (int i = 0; i < requests; i++) {
                byte[] header = new byte[in.readInt()];
                byte[] message = new byte[in.readInt()];
                byte[] data = new byte[in.readInt()];
                in.readFully(header);
                in.readFully(message);
                in.readFully(data);
                RpcHeader reply = RpcHeader.parseFrom(header);
                int callId = Math.toIntExact(reply.getCallId());
                assertThat(reply.getMessageType()).isEqualTo(MessageType.RESPONSE);
                assertThat(reply.hasErrorResponse()).as("call %d", callId).isFalse();
                assertThat(answered[callId]).as("call %d answered once", callId).isFalse();
                answered[callId] = true;
                assertThat(UserCredentials.parseFrom(message).getUsername()).isEqualTo("u" + callId);
                assertThat(data).as("data of call %d", callId).isEqualTo(echoData(callId));
            }
        }
        assertThat(server.batchedReplies() - batchedBefore).isEqualTo(requests);
        assertEchoWorks();
    }

    private static byte[] echoData(int callId) {
        byte[] data = new byte[4096];
        new Random(callId).nextBytes(data);
        return data;
    }

    private static UserCredentials user(String name) {
        return UserCredentials.newBuilder().setUsername(name).setUid(1000).setGid(100).build();
    }

    // A request message and its data segment come back unchanged, for data segments the encoder copies behind the
    // header (up to RecordEncoder.COPIED_DATA_BYTES_MAX) and larger ones it joins as a composite, up to 512 KiB.
    @Test
    void echoesMessageAndData() throws Exception {
        int copiedMax = RecordEncoder.COPIED_DATA_BYTES_MAX;
        for (int length : new int[] {1, 4096, copiedMax, copiedMax + 1, 512 * 1024}) {
            byte[] payload = new byte[length];
            new Random(length).nextBytes(payload);
            try (RpcResponse response = RpcClient.await(client.call(address, INTERFACE, ECHO, user("alice"),
                    user("bob"), Unpooled.wrappedBuffer(payload), 5_000))) {
                assertThat(response.message(UserCredentials.parser()).getUsername()).isEqualTo("bob");
                assertThat(response.dataBytes()).as("data of %d bytes", length).isEqualTo(payload);
            }
        }
    }

    // Many concurrent calls on one shared connection each get their own response.
    @Test
    void concurrentCallsAreMatchedToTheirResponses() throws Exception {
        List<CompletableFuture<UserCredentials>> futures = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            futures.add(client.callParsed(address, INTERFACE, ECHO, null, user("u" + i), UserCredentials.parser(), 10_000));
        }
        for (int i = 0; i < 500; i++) {
            assertThat(RpcClient.await(futures.get(i)).getUsername()).isEqualTo("u" + i);
        }
    }

    // Replies made on several other threads at once (storage workers) reach the event loop through the connection's
    // own queue: every call gets exactly its answer, message and data, however the answering threads interleave.
    @Test
    void repliesFromManyThreadsAtOnceEachArriveWhole() throws Exception {
        Random random = new Random(8);
        List<CompletableFuture<RpcResponse>> futures = new ArrayList<>();
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            byte[] data = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(4097)];
            random.nextBytes(data);
            sent.add(data);
            futures.add(client.call(address, INTERFACE, ECHO_ELSEWHERE, null, user("w" + i),
                    Unpooled.wrappedBuffer(data), 10_000));
        }
        for (int i = 0; i < futures.size(); i++) {
            try (RpcResponse response = RpcClient.await(futures.get(i))) {
                assertThat(response.message(UserCredentials.parser()).getUsername()).isEqualTo("w" + i);
                assertThat(response.dataBytes()).as("call %d", i).isEqualTo(sent.get(i));
            }
        }
    }

    // A POSIX error raised by a handler arrives as ERRNO with the errno and the message.
    @Test
    void errnoErrorsKeepTheirErrno() {
        assertThatThrownBy(() -> RpcClient.await(client.call(address, INTERFACE, FAIL_ERRNO, null,
                Empty.getDefaultInstance(), null, 5_000)))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(ErrorType.ERRNO);
                    assertThat(e.posixErrno()).isEqualTo(Errno.ENOTEMPTY);
                    assertThat(e.getMessage()).contains("/a is not empty");
                });
    }

    // A handler bug becomes INTERNAL for that call only; the server keeps serving.
    @Test
    void handlerExceptionBecomesInternalError() throws Exception {
        assertThatThrownBy(() -> RpcClient.await(client.call(address, INTERFACE, THROW, null,
                Empty.getDefaultInstance(), null, 5_000)))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INTERNAL));
        assertEchoWorks();
    }

    // Unknown procedures are refused with INVALID_ARGS naming the procedure.
    @Test
    void unknownProcedureIsInvalidArgs() {
        assertThatThrownBy(() -> RpcClient.await(client.call(address, INTERFACE, 99, null,
                Empty.getDefaultInstance(), null, 5_000)))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS);
                    assertThat(e.getMessage()).contains("99");
                });
    }

    // A call without an answer fails with a timeout after its deadline, not later and not never.
    @Test
    void unansweredCallTimesOut() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> RpcClient.await(client.call(address, INTERFACE, NEVER_ANSWER, null,
                Empty.getDefaultInstance(), null, 300)))
                .isInstanceOfSatisfying(RpcTransportException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
    }

    // Calls beyond the server's bound on calls in progress get OVERLOADED instead of queueing.
    @Test
    void excessCallsAreRejectedAsOverloaded() throws Exception {
        server.close();
        server = newServer(new InetSocketAddress("127.0.0.1", 0), 2);
        address = server.start();
        CompletableFuture<RpcResponse> first = client.call(address, INTERFACE, BLOCK_UNTIL_RELEASED, null,
                Empty.getDefaultInstance(), null, 10_000);
        CompletableFuture<RpcResponse> second = client.call(address, INTERFACE, BLOCK_UNTIL_RELEASED, null,
                Empty.getDefaultInstance(), null, 10_000);
        CompletableFuture<RpcResponse> third = client.call(address, INTERFACE, BLOCK_UNTIL_RELEASED, null,
                Empty.getDefaultInstance(), null, 10_000);
        assertThatThrownBy(() -> RpcClient.await(third))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(ErrorType.OVERLOADED);
                    assertThat(e.isTransient()).isTrue();
                });
        release.countDown();
        RpcClient.await(first).close();
        RpcClient.await(second).close();
    }

    // Garbage, oversized markers and truncated frames close only the offending connection.
    @Test
    void malformedInputLeavesServerServing() throws Exception {
        Random random = new Random(42);
        for (int i = 0; i < 20; i++) {
            byte[] garbage = new byte[1 + random.nextInt(4096)];
            random.nextBytes(garbage);
            sendRawAndExpectClose(garbage);
        }
        ByteBuffer oversized = ByteBuffer.allocate(12).putInt(10).putInt(10).putInt(Integer.MAX_VALUE);
        sendRawAndExpectClose(oversized.array());
        ByteBuffer negative = ByteBuffer.allocate(12).putInt(-1).putInt(0).putInt(0);
        sendRawAndExpectClose(negative.array());
        ByteBuffer badHeader = ByteBuffer.allocate(12 + 5).putInt(5).putInt(0).putInt(0)
                .put("\u00ff\u00ff\u00ff\u00ff\u00ff".getBytes(StandardCharsets.ISO_8859_1));
        sendRawAndExpectClose(badHeader.array());
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.getOutputStream().write(ByteBuffer.allocate(8).putInt(100).putInt(0).array());
        }
        assertThat(server.malformedFrames()).isGreaterThanOrEqualTo(3);
        assertEchoWorks();
    }

    // After the server restarts on the same port, the client reconnects on its next call. The one port this suite
    // binds again after freeing it (a restart on the same port is what is tested, as the cluster launcher's restarts
    // do): another process could bind it in the milliseconds between close and the new bind only by drawing this very
    // port among the kernel's ~28k ephemeral ones, and the new bind would then fail loudly, not pass wrongly.
    @Test
    void clientReconnectsAfterServerRestart() throws Exception {
        assertEchoWorks();
        server.close();
        assertThatThrownBy(() -> RpcClient.await(client.call(address, INTERFACE, ECHO, null, user("x"), null, 2_000)))
                .isInstanceOf(RpcTransportException.class);
        server = newServer(address, 10_000);
        server.start();
        assertEchoWorks();
    }

    private void sendRawAndExpectClose(byte[] bytes) throws Exception {
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            // Either the server closes (read returns -1 or resets) or it waits for more bytes of a frame
            // that looks plausible; in the second case the socket times out and we close it ourselves.
            try {
                in.read();
            } catch (java.net.SocketTimeoutException | java.net.SocketException expected) {
                // fine: nothing was answered
            }
        }
    }

    private void assertEchoWorks() throws Exception {
        UserCredentials answer = RpcClient.await(client.callParsed(address, INTERFACE, ECHO, null, user("still-here"),
                UserCredentials.parser(), 5_000));
        assertThat(answer.getUsername()).isEqualTo("still-here");
    }
}
