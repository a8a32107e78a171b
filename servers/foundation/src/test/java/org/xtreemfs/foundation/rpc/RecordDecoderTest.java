package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
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

    @Test
    void recordsCutAnywhereDecodeWholeWithLargeDataAlignedInABufferOfItsOwn() {
        // Proves every record arrives whole and in order however the stream is cut into reads (the large data
        // segments now bypass the cumulation), that a large segment starts on a 4 KiB boundary in direct memory
        // (what an OSD's O_DIRECT write needs), and that nothing stays allocated once the records are released.
        for (int seed = 0; seed < 40; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            List<Sent> sent = new ArrayList<>();
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            for (int i = 0; i < 12; i++) {
                int dataLength = DATA_LENGTHS[random.nextInt(DATA_LENGTHS.length)];
                Sent record = new Sent(seed * 100L + i + 1, // call id 0 would be an empty header
                        pattern(random.nextInt(200), i), pattern(dataLength, seed + i));
                sent.add(record);
                record(stream, record);
            }
            byte[] bytes = stream.toByteArray();
            UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);
            EmbeddedChannel channel = new EmbeddedChannel(new RecordDecoder(LIMITS));
            channel.config().setAllocator(allocator);
            int largestRead = random.nextBoolean() ? 70_000 : 1_500_000;
            for (int at = 0; at < bytes.length; ) {
                int length = Math.min(bytes.length - at, 1 + random.nextInt(largestRead));
                ByteBuf read = allocator.directBuffer(length);
                read.writeBytes(bytes, at, length);
                channel.writeInbound(read);
                at += length;
            }
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
            assertThat(channel.finish()).isFalse();
            assertThat(allocator.metric().usedDirectMemory()).as("seed %d", seed).isZero();
        }
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
        EmbeddedChannel channel = new EmbeddedChannel(new RecordDecoder(LIMITS));
        channel.config().setAllocator(allocator);
        ByteBuf read = allocator.directBuffer(bytes.length / 2);
        read.writeBytes(bytes, 0, bytes.length / 2);
        channel.writeInbound(read);
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(allocator.metric().usedDirectMemory()).isGreaterThanOrEqualTo(1 << 20);
        channel.close();
        channel.finish();
        assertThat(allocator.metric().usedDirectMemory()).isZero();
    }
}
