package org.xtreemfs.foundation.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReceiveBuffersTest {
    private static final UnpooledByteBufAllocator ALLOCATOR = new UnpooledByteBufAllocator(true);

    @Test
    void aReleasedBuffersMemoryServesTheNextSegmentOfItsSizeClass() {
        // Proves the point of the pool: a stream of 1 MiB records, each released before the next arrives, allocates
        // memory once (Netty's pool allocated and zeroed a new 4 MiB chunk about every third record).
        ReceiveBuffers buffers = new ReceiveBuffers(8 << 20);
        long firstAddress = -1;
        for (int i = 0; i < 10; i++) {
            ByteBuf data = buffers.take(ALLOCATOR, 1 << 20);
            assertThat(data.capacity()).isEqualTo(1 << 20);
            assertThat(data.writerIndex()).isZero();
            assertThat(data.isDirect()).isTrue();
            assertThat(data.nioBuffer(0, data.capacity()).alignmentOffset(0, RecordDecoder.DATA_ALIGNMENT_BYTES))
                    .isZero();
            data.writerIndex(data.capacity());
            long address = addressOf(data);
            if (firstAddress < 0) {
                firstAddress = address;
            }
            assertThat(address).as("record %d reuses the first record's memory", i).isEqualTo(firstAddress);
            data.release();
        }
        assertThat(buffers.memoryAllocations()).isEqualTo(1);
        assertThat(buffers.buffersInUse()).isZero();
        assertThat(buffers.idleBytes()).isEqualTo(1 << 20);
    }

    @Test
    void segmentsGetTheSmallestPowerOfTwoThatHoldsThemAndCannotGrowPastTheirLength() {
        assertThat(ReceiveBuffers.sizeClass(RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN)).isZero();
        assertThat(ReceiveBuffers.sizeClass(RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN + 1)).isEqualTo(1);
        assertThat(ReceiveBuffers.sizeClass(1 << 20)).isEqualTo(4);
        assertThat(ReceiveBuffers.sizeClass((1 << 20) + 1)).isEqualTo(5);
        assertThat(ReceiveBuffers.sizeClass(ReceiveBuffers.POOLED_BYTES_MAX)).isEqualTo(8);
        assertThat(ReceiveBuffers.sizeClass(ReceiveBuffers.POOLED_BYTES_MAX + 1)).isEqualTo(-1);
        ReceiveBuffers buffers = new ReceiveBuffers(8 << 20);
        ByteBuf data = buffers.take(ALLOCATOR, 300_001);
        assertThat(data.capacity()).isEqualTo(300_001);
        data.writeZero(300_001);
        assertThatThrownBy(() -> data.writeByte(1)).isInstanceOf(IndexOutOfBoundsException.class);
        data.release();
        assertThat(buffers.idleBytes()).isEqualTo(512 * 1024);
        // A 400,000-byte segment is of the same class: it takes the idle memory instead of allocating.
        buffers.take(ALLOCATOR, 400_000).release();
        assertThat(buffers.memoryAllocations()).isEqualTo(1);
    }

    @Test
    void idleMemoryStaysWithinItsBoundAndOversizedSegmentsAreNotKept() {
        // Proves the bound: after a burst of records in flight, only idleBytesMax of their memory stays allocated; the
        // rest (and any segment above the largest class) is freed when released.
        ReceiveBuffers buffers = new ReceiveBuffers(3 << 20);
        List<ByteBuf> inFlight = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            inFlight.add(buffers.take(ALLOCATOR, 1 << 20));
        }
        inFlight.add(buffers.take(ALLOCATOR, ReceiveBuffers.POOLED_BYTES_MAX + 4096));
        assertThat(buffers.buffersInUse()).isEqualTo(9);
        inFlight.forEach(ByteBuf::release);
        assertThat(buffers.buffersInUse()).isZero();
        assertThat(buffers.idleBytes()).isEqualTo(3 << 20);
    }

    @Test
    void aBufferIsGivenBackOnlyWhenItsLastSliceIsReleased() {
        // The OSD hands a write's data on as read-only views and retained duplicates (a replication chain forwards
        // it); the memory must not serve another segment while any of them is alive.
        ReceiveBuffers buffers = new ReceiveBuffers(8 << 20);
        ByteBuf data = buffers.take(ALLOCATOR, 1 << 20);
        data.writerIndex(data.capacity());
        ByteBuf forwarded = data.asReadOnly().retainedDuplicate();
        data.release();
        assertThat(buffers.buffersInUse()).isEqualTo(1);
        assertThat(buffers.idleBytes()).isZero();
        forwarded.release();
        assertThat(buffers.buffersInUse()).isZero();
        assertThat(buffers.idleBytes()).isEqualTo(1 << 20);
    }

    private static long addressOf(ByteBuf data) {
        return PlatformDependent.directBufferAddress(data.nioBuffer());
    }
}
