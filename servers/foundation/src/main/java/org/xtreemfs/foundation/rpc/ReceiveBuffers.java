package org.xtreemfs.foundation.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The direct buffers {@link RecordDecoder} receives large data segments into, each starting on a
 * {@link RecordDecoder#DATA_ALIGNMENT_BYTES} boundary, kept for the next segment when their record is released.
 *
 * <p>Why not Netty's pool: a 1 MiB + 4 KiB buffer fills about a third of one of its 4 MiB chunks, and the pool
 * frees a chunk as soon as its last buffer is released, so a stream of 1 MiB writes (one or two records in flight)
 * made it allocate a fresh chunk about every third record, which the JDK zeroes (profiled on an OSD's sequential
 * writes: `PoolArena.newChunk` → `Unsafe.setMemory` 1.3 % of its samples buffered, 4.8 % O_DIRECT, plus the page
 * faults of new memory; tests/bench/fuse/README.md, session 12). Here a released buffer's memory is reused as it is.
 *
 * <p>Memory comes in power-of-two sizes from {@link RecordDecoder#OWN_BUFFER_DATA_BYTES_MIN} to
 * {@link #POOLED_BYTES_MAX}; a segment gets the smallest that holds it (a 1 MiB object write exactly 1 MiB). Larger
 * segments get memory of their own, freed on release. Bounds: the memory kept idle is at most
 * {@code idleBytesMax} (what would exceed it is freed at once); the memory in use is what the records not yet
 * released hold, which the frame limits and each server's bound on calls in progress bound as before.
 * Thread-safe: buffers are taken on event loops and released on whichever thread finishes with the record.
 */
final class ReceiveBuffers {
    /** Idle memory kept per process: enough for a queue depth of 32 of 1 MiB writes, small beside any heap. */
    static final long IDLE_BYTES_MAX_DEFAULT = 32L << 20;
    /** The largest pooled size; segments above it are rare (the default frame limit allows 16 MiB). */
    static final int POOLED_BYTES_MAX = 16 << 20;
    private static final int SMALLEST_CLASS_SHIFT = Integer.numberOfTrailingZeros(RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN);
    private static final int CLASS_COUNT = Integer.numberOfTrailingZeros(POOLED_BYTES_MAX) - SMALLEST_CLASS_SHIFT + 1;

    /** What every RecordDecoder of this process uses. */
    static final ReceiveBuffers SHARED = new ReceiveBuffers(IDLE_BYTES_MAX_DEFAULT);

    private final long idleBytesMax;
    /** Idle memory by size class (index 0: the smallest); guarded by this. */
    private final ArrayDeque<Memory>[] idle;
    /** Guarded by this. */
    private long idleBytes;
    private long memoryAllocations;
    private long buffersInUse;

    /**
     * One allocation: {@code owner} holds the memory (releasing it frees it), {@code aligned} is its aligned part of
     * {@code sizeBytes}; {@code sizeClass} is -1 for memory that is not pooled.
     */
    private record Memory(ByteBuf owner, ByteBuffer aligned, int sizeBytes, int sizeClass) {}

    @SuppressWarnings("unchecked")
    ReceiveBuffers(long idleBytesMax) {
        if (idleBytesMax < 0) {
            throw new IllegalArgumentException("idle receive buffer bytes must be >= 0, got " + idleBytesMax);
        }
        this.idleBytesMax = idleBytesMax;
        this.idle = new ArrayDeque[CLASS_COUNT];
        for (int i = 0; i < CLASS_COUNT; i++) {
            idle[i] = new ArrayDeque<>();
        }
    }

    /**
     * An empty direct buffer of exactly {@code lengthBytes} capacity (it cannot grow), starting on a
     * {@link RecordDecoder#DATA_ALIGNMENT_BYTES} boundary; releasing it (and every slice or duplicate of it) gives its
     * memory back. Its bytes are whatever the memory held before: the caller writes all of them before reading any.
     */
    ByteBuf take(ByteBufAllocator allocator, int lengthBytes) {
        int sizeClass = sizeClass(lengthBytes);
        Memory memory = null;
        synchronized (this) {
            buffersInUse++;
            if (sizeClass >= 0) {
                memory = idle[sizeClass].pollLast(); // the most recently used: likeliest still in the CPU's caches
                if (memory != null) {
                    idleBytes -= memory.sizeBytes();
                }
            }
            if (memory == null) {
                memoryAllocations++;
            }
        }
        if (memory == null) {
            int sizeBytes = sizeClass >= 0 ? RecordDecoder.OWN_BUFFER_DATA_BYTES_MIN << sizeClass
                    : roundUp(lengthBytes, RecordDecoder.DATA_ALIGNMENT_BYTES);
            memory = allocate(sizeBytes, sizeClass);
        }
        ByteBuffer view = memory.aligned().duplicate().clear().limit(lengthBytes);
        return new DataBuffer(allocator, view, lengthBytes, memory).writerIndex(0);
    }

    private static Memory allocate(int sizeBytes, int sizeClass) {
        int alignment = RecordDecoder.DATA_ALIGNMENT_BYTES;
        ByteBuf owner = UnpooledByteBufAllocator.DEFAULT.directBuffer(sizeBytes + alignment - 1,
                sizeBytes + alignment - 1);
        // sizeBytes is a multiple of the alignment, so the aligned part of the slightly larger block holds all of it.
        ByteBuffer aligned = owner.nioBuffer(0, owner.capacity()).alignedSlice(alignment).limit(sizeBytes).slice();
        return new Memory(owner, aligned, sizeBytes, sizeClass);
    }

    private void giveBack(Memory memory) {
        boolean kept = false;
        synchronized (this) {
            buffersInUse--;
            if (memory.sizeClass() >= 0 && idleBytes + memory.sizeBytes() <= idleBytesMax) {
                idle[memory.sizeClass()].addLast(memory);
                idleBytes += memory.sizeBytes();
                kept = true;
            }
        }
        if (!kept) {
            memory.owner().release();
        }
    }

    /** The size class holding {@code lengthBytes}, or -1 when it is above {@link #POOLED_BYTES_MAX}. */
    static int sizeClass(int lengthBytes) {
        if (lengthBytes > POOLED_BYTES_MAX) {
            return -1;
        }
        int shift = 32 - Integer.numberOfLeadingZeros(Math.max(lengthBytes, 1) - 1); // ceil(log2(length))
        return Math.max(0, shift - SMALLEST_CLASS_SHIFT);
    }

    private static int roundUp(int value, int multiple) {
        return (int) Math.min(Integer.MAX_VALUE - multiple, ((long) value + multiple - 1) / multiple * multiple);
    }

    /** Idle memory kept, in bytes. */
    synchronized long idleBytes() {
        return idleBytes;
    }

    /** Buffers taken and not yet released. */
    synchronized long buffersInUse() {
        return buffersInUse;
    }

    /** Memory blocks allocated since start (a take served from idle memory allocates none). */
    synchronized long memoryAllocations() {
        return memoryAllocations;
    }

    /** A taken buffer: a view of pooled memory that gives it back when its reference count reaches zero. */
    private final class DataBuffer extends UnpooledDirectByteBuf {
        private final Memory memory;

        DataBuffer(ByteBufAllocator allocator, ByteBuffer view, int lengthBytes, Memory memory) {
            super(allocator, view, lengthBytes); // wraps view without owning it: deallocate frees nothing itself
            this.memory = memory;
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            giveBack(memory);
        }
    }
}
