package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.rpc.RpcHeader;

class RecordDecoderTest {
    private static final FrameLimits LIMITS = new FrameLimits(1024, 4096, 4 << 20);
    /** Small and large data segments, on both sides of the decoder's own-buffer size, aligned and not. */
    private static final int[] DATA_LENGTHS = {0, 10, RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN - 1,
            RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN, 1 << 20, 300_001, 3, 2 << 20, 4096};

    private record Sent(long callId, byte[] message, byte[] data) {}

    private static byte[] pattern(int length, long seed) {
        byte[] bytes = new byte[length];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }

    private static void record(ByteArrayOutputStream stream, Sent sent) {
        byte[] header = RpcHeader.newBuilder().setCallId(sent.callId()).build().toByteArray();
        ByteBuffer marker = ByteBuffer.allocate(RecordMarker.SIZE_BYTES).putInt(header.length)
                .putInt(sent.message().length).putInt(sent.data().length);
        stream.writeBytes(marker.array());
        stream.writeBytes(header);
        stream.writeBytes(sent.message());
        stream.writeBytes(sent.data());
    }

    private static byte[] bytesOf(ByteBuf buffer) {
        byte[] bytes = new byte[buffer.readableBytes()];
        buffer.getBytes(buffer.readerIndex(), bytes);
        return bytes;
    }

    /** Twelve records of random sizes (the data lengths from DATA_LENGTHS) into {@code sent}; returns their bytes. */
    private static byte[] randomRecords(int seed, SplittableRandom random, List<Sent> sent) {
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (int i = 0; i < 12; i++) {
            int dataLength = DATA_LENGTHS[random.nextInt(DATA_LENGTHS.length)];
            Sent record = new Sent(seed * 100L + i + 1, // call id 0 would be an empty header
                    pattern(random.nextInt(200), i), pattern(dataLength, seed + i));
            sent.add(record);
            record(stream, record);
        }
        return stream.toByteArray();
    }

    /** The channel's records are {@code sent}, in order, large data in aligned direct memory; releases them. */
    private static void assertReceivedWholeAndAlignedAndRelease(EmbeddedChannel channel, List<Sent> sent, int seed) {
        List<RpcRecord> received = new ArrayList<>();
        for (Object record; (record = channel.readInbound()) != null; ) {
            received.add((RpcRecord) record);
        }
        assertThat(received).as("seed %d", seed).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            RpcRecord record = received.get(i);
            assertThat(record.header().getCallId()).as("seed %d record %d", seed, i).isEqualTo(sent.get(i).callId());
            assertThat(bytesOf(record.message())).isEqualTo(sent.get(i).message());
            assertThat(bytesOf(record.data())).as("seed %d record %d data", seed, i).isEqualTo(sent.get(i).data());
            if (sent.get(i).data().length >= RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN) {
                ByteBuffer data = record.data().nioBuffer();
                assertThat(data.isDirect()).isTrue();
                assertThat(data.alignmentOffset(0, RecordDecoder.DATA_ALIGNMENT_BYTES)).as("seed %d record %d",
                        seed, i).isZero();
            }
            record.release();
        }
    }

    @Test
    void recordsCutAnywhereDecodeWholeWithLargeDataAlignedInABufferOfItsOwn() {
        // Proves every record arrives whole and in order however the stream is cut into reads (the large data
        // segments now bypass the cumulation), that a large segment starts on a 4 KiB boundary in direct memory
        // (what an OSD's O_DIRECT write needs), and that nothing stays allocated once the records are released.
        for (int seed = 0; seed < 40; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<Sent> sent = new ArrayList<>();
            byte[] bytes = randomRecords(seed, random, sent);
            UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);
            ReceiveBuffers buffers = new ReceiveBuffers(4 << 20);
            EmbeddedChannel channel = new EmbeddedChannel(new RecordDecoder(LIMITS, buffers));
            channel.config().setAllocator(allocator);
            int largestRead = random.nextBoolean() ? 70_000 : 1_500_000;
            for (int at = 0; at < bytes.length; ) {
                int length = Math.min(bytes.length - at, 1 + random.nextInt(largestRead));
                ByteBuf read = allocator.directBuffer(length);
                read.writeBytes(bytes, at, length);
                channel.writeInbound(read);
                at += length;
            }
            assertReceivedWholeAndAlignedAndRelease(channel, sent, seed);
            assertThat(channel.finish()).isFalse();
            assertThat(allocator.metric().usedDirectMemory()).as("seed %d", seed).isZero();
            assertThat(buffers.buffersInUse()).as("seed %d", seed).isZero();
        }
    }

    @Test
    void largeSegmentsAreReadFromTheSocketIntoTheirPlaceAndNeverPastTheirEnd() {
        // Proves what the OSD's sequential writes rely on: with the decoder reading its socket first-hand, Netty's read
        // loop is handed the unfilled rest of a large segment's buffer, so those bytes land in place with no copy (only
        // what arrived with the header is copied), a read never takes bytes of the next record (a handed-out buffer
        // holds at most the segment's rest), and every record still arrives whole, aligned and in order. The reads
        // here imitate Netty's loop: allocate from the channel's receive allocator, fill what the socket holds (a
        // random amount), pass the buffer on.
        for (int seed = 0; seed < 40; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<Sent> sent = new ArrayList<>();
            byte[] bytes = randomRecords(seed, random, sent);
            long largeDataBytes = sent.stream().mapToLong(record -> record.data().length)
                    .filter(length -> length >= RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN).sum();
            UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);
            ReceiveBuffers buffers = new ReceiveBuffers(4 << 20);
            RecordDecoder decoder = new RecordDecoder(LIMITS, buffers);
            EmbeddedChannel channel = new EmbeddedChannel(decoder);
            channel.config().setAllocator(allocator);
            RecvByteBufAllocator.Handle reads = channel.config().getRecvByteBufAllocator().newHandle();
            int socketHoldsMax = random.nextBoolean() ? 70_000 : 1_500_000;
            for (int at = 0; at < bytes.length; ) {
                ByteBuf read = reads.allocate(allocator);
                int length = Math.min(Math.min(bytes.length - at, read.writableBytes()), 1 + random.nextInt(socketHoldsMax));
                read.writeBytes(bytes, at, length);
                at += length;
                channel.writeInbound(read);
            }
            assertReceivedWholeAndAlignedAndRelease(channel, sent, seed);
            assertThat(decoder.bytesReadInPlace() + decoder.bytesCopiedInPlace()).as("seed %d", seed)
                    .isEqualTo(largeDataBytes);
            if (largeDataBytes > 0) {
                // At most what a read of the usual size (64 KiB) brought with a header is copied per segment.
                assertThat(decoder.bytesReadInPlace()).as("seed %d", seed).isGreaterThan(largeDataBytes / 2);
            }
            assertThat(channel.finish()).isFalse();
            assertThat(allocator.metric().usedDirectMemory()).as("seed %d", seed).isZero();
            assertThat(buffers.buffersInUse()).as("seed %d", seed).isZero();
        }
    }

    @Test
    void behindAHandlerThatReadsTheBytesSegmentsAreCopiedAndTheReceiveAllocatorIsLeftAlone() {
        // Proves a TLS handler (or any handler before the decoder that takes the socket's bytes) never gets a segment's
        // buffer to read into: the socket's bytes would be ciphertext. The decoder leaves the channel's allocator as it
        // is and copies the segments into place.
        ChannelInboundHandlerAdapter readsBytes = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext context, Object message) {
                context.fireChannelRead(message);
            }
        };
        ReceiveBuffers buffers = new ReceiveBuffers(4 << 20);
        RecordDecoder decoder = new RecordDecoder(LIMITS, buffers);
        EmbeddedChannel channel = new EmbeddedChannel(readsBytes, decoder);
        assertThat((Object) channel.config().getRecvByteBufAllocator()).isInstanceOf(AdaptiveRecvByteBufAllocator.class);
        Sent sent = new Sent(3, pattern(20, 1), pattern(1 << 20, 2));
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        record(stream, sent);
        byte[] bytes = stream.toByteArray();
        for (int at = 0; at < bytes.length; at += 65_536) {
            channel.writeInbound(Unpooled.copiedBuffer(bytes, at, Math.min(65_536, bytes.length - at)));
        }
        RpcRecord record = channel.readInbound();
        assertThat(bytesOf(record.data())).isEqualTo(sent.data());
        record.release();
        assertThat(decoder.bytesReadInPlace()).isZero();
        assertThat(decoder.bytesCopiedInPlace()).isEqualTo(1 << 20);
        assertThat(buffers.buffersInUse()).isZero();
    }

    @Test
    void aConnectionClosedWithinALargeDataSegmentReleasesItsBuffer() {
        // Proves the buffer a large segment is being received into is released when the connection ends before
        // the segment does (an OSD must not keep 1 MiB per broken client connection).
        Sent sent = new Sent(7, pattern(20, 1), pattern(1 << 20, 2));
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        record(stream, sent);
        byte[] bytes = stream.toByteArray();
        UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);
        ReceiveBuffers buffers = new ReceiveBuffers(4 << 20);
        EmbeddedChannel channel = new EmbeddedChannel(new RecordDecoder(LIMITS, buffers));
        channel.config().setAllocator(allocator);
        ByteBuf read = allocator.directBuffer(bytes.length / 2);
        read.writeBytes(bytes, 0, bytes.length / 2);
        channel.writeInbound(read);
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(buffers.buffersInUse()).isEqualTo(1);
        channel.close();
        channel.finish();
        assertThat(allocator.metric().usedDirectMemory()).isZero();
        assertThat(buffers.buffersInUse()).isZero();
        assertThat(buffers.idleBytes()).as("its memory kept for the next segment").isEqualTo(1 << 20);
    }
    @Test
    void anEmptyDataSegmentHoldsNothingOfTheReceivedBytes() {
        // Proves what an object read's request relies on: without data the record's data segment is no slice of the
        // received buffer (whose pooled object the answering thread, a storage worker, would give back to the event
        // loop's recycler), so once the message is released nothing of the received bytes is held.
        Sent sent = new Sent(9, pattern(30, 3), new byte[0]);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        record(stream, sent);
        byte[] bytes = stream.toByteArray();
        EmbeddedChannel channel = new EmbeddedChannel(new RecordDecoder(LIMITS, new ReceiveBuffers(4 << 20)));
        ByteBuf read = Unpooled.directBuffer(bytes.length);
        read.writeBytes(bytes);
        channel.writeInbound(read);
        RpcRecord record = channel.readInbound();
        assertThat(record.header().getCallId()).isEqualTo(9);
        assertThat(bytesOf(record.message())).isEqualTo(sent.message());
        assertThat(record.data().readableBytes()).isZero();
        record.message().release();
        assertThat(read.refCnt()).as("the received buffer, held by the message alone").isZero();
        record.release(); // releasing the whole record after its message is still safe
        assertThat(channel.finish()).isFalse();
    }
}
