package org.xtreemfs.foundation.rpc;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.xtreemfs.interfaces.rpc.RpcHeader;

/**
 * Writes one connection's replies and flushes them in batches. Every flush is a system call (writev) that on loopback
 * also runs the receiver's TCP processing, and every reply handed from another thread to the event loop used to wake
 * it (an eventfd write and a thread switch): one of each per 4 KiB request. Now:
 *
 * <ul>
 *   <li>a reply made on the event loop while it handles a batch of received requests is flushed once at the end of
 *       that batch ({@link #readBatchEnded}, from {@code channelReadComplete}); elsewhere on the event loop at once.
 *       A small one ({@link #sendInBatch}) is also not a buffer and a write of its own: it is appended to the batch's
 *       one buffer, written at the batch's end (per reply a pooled allocation and release, a pass through the
 *       pipeline and an outbound entry less: about 4 % of an OSD's CPU under 4 KiB random writes, async-profiler);
 *   <li>a reply made on another thread (a storage worker) goes into this connection's own queue ({@link #pending}),
 *       and one task per batch, which wakes the loop, writes what the queue holds and flushes: the replies that come
 *       while the loop is waking up or busy go out together. Not {@code channel.write} from that thread: Netty wraps
 *       each such write in a pooled task object taken on the worker and given back on the event loop, a cross-thread
 *       recycle per reply (Netty's recycler ~5 % of an OSD's samples under random reads, most of it such objects).
 * </ul>
 *
 * <p>Invariant: every queued reply is written and flushed by a task that runs after it was queued. A writer that finds
 * a task already scheduled ({@link #flushScheduled} set) queued its reply before that task clears the flag, and the
 * task takes the queue's replies only after clearing it, so it takes that reply too.
 */
final class ReplyWriter {
    private final Channel channel;
    /** Set while a flush task from another thread is queued and has not yet cleared it. */
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    /** Event loop only: inside a batch of received requests, whose end flushes. */
    private boolean inReadBatch;
    /** Event loop only: something was written in the current read batch. */
    private boolean unflushed;
    /** Event loop only: the current read batch's small replies, written at its end (null: none yet). */
    private ByteBuf batch;
    /** Replies appended to a batch's buffer (see {@link #sendInBatch}). */
    private final AtomicLong batchedReplies;
    /**
     * Capacity of a batch's buffer: a full one is written and the next reply starts another, so the replies of a
     * batch wait for the transport's write bound ({@code ReplyBufferLimits}) at most this much longer than one by one.
     */
    static final int BATCH_BUFFER_BYTES = 64 * 1024;
    /** Replies made on other threads, in the order they were made, until the event loop writes them. */
    private final Queue<ByteBuf> pending = PlatformDependent.newMpscQueue();
    private final Runnable writePending;

    ReplyWriter(Channel channel, AtomicLong batchedReplies) {
        this.channel = channel;
        this.batchedReplies = batchedReplies;
        this.writePending = this::writePending;
    }

    /** Sends one encoded reply (ownership passes to the transport). */
    void send(ByteBuf record) {
        if (channel.eventLoop().inEventLoop()) {
            channel.write(record, channel.voidPromise());
            flushUnlessInReadBatch();
            return;
        }
        pending.offer(record);
        if (flushScheduled.compareAndSet(false, true)) {
            try {
                channel.eventLoop().execute(writePending);
            } catch (RuntimeException e) { // the event loop is shut down: nobody will send them
                flushScheduled.set(false);
                for (ByteBuf unsent; (unsent = pending.poll()) != null; ) {
                    unsent.release();
                }
                throw e;
            }
        }
    }

    /** On the event loop: writes the replies other threads queued (see the class comment) and flushes them. */
    private void writePending() {
        flushScheduled.set(false); // before taking the queue: a reply queued after this schedules the next task
        for (ByteBuf record; (record = pending.poll()) != null; ) {
            channel.write(record, channel.voidPromise()); // to a closed channel: released by the transport
        }
        channel.flush();
    }

    /**
     * On the event loop inside a read batch, appends a reply whose data segment (may be null) is at most
     * {@link RecordEncoder#COPIED_DATA_BYTES_MAX} bytes to the batch's buffer, written and flushed at the batch's end,
     * and returns true; {@code data} is released. Elsewhere returns false and does nothing (the caller {@link #send}s).
     */
    boolean sendInBatch(RpcHeader header, MessageLite message, ByteBuf data) {
        if (!channel.eventLoop().inEventLoop() || !inReadBatch
                || (data != null && data.readableBytes() > RecordEncoder.COPIED_DATA_BYTES_MAX)) {
            return false;
        }
        int recordLength = RecordEncoder.recordLength(header, message, data == null ? 0 : data.readableBytes());
        if (batch != null && batch.writableBytes() < recordLength) {
            writeBatch();
        }
        if (batch == null) {
            int capacity = Math.max(BATCH_BUFFER_BYTES, recordLength);
            batch = channel.alloc().directBuffer(capacity, capacity);
        }
        RecordEncoder.appendTo(batch, header, message, data);
        unflushed = true;
        batchedReplies.incrementAndGet();
        return true;
    }

    private void writeBatch() {
        ByteBuf full = batch;
        batch = null;
        channel.write(full, channel.voidPromise());
    }

    /**
     * Sends one reply whose data segment is sent from a file: {@code prefix} (marker, header, message) and then
     * {@code segment}, with no other reply between them; ownership of both passes to the transport. From another
     * thread both are written by one task on the event loop (which wakes it): two writes queued one after the other
     * could let a third thread's reply in between and corrupt the stream.
     */
    void send(ByteBuf prefix, FileSegment segment) {
        segment.transferredBy(channel.eventLoop());
        if (channel.eventLoop().inEventLoop()) {
            channel.write(prefix, channel.voidPromise());
            channel.write(segment, channel.voidPromise());
            flushUnlessInReadBatch();
            return;
        }
        try {
            channel.eventLoop().execute(() -> send(prefix, segment));
        } catch (RuntimeException e) { // the event loop is shut down: nobody will send or release them
            prefix.release();
            segment.release();
            throw e;
        }
    }

    /** On the event loop, after a reply was written: flushes it now, or at the end of the current read batch. */
    private void flushUnlessInReadBatch() {
        if (inReadBatch) {
            unflushed = true;
        } else {
            channel.flush();
        }
    }

    /** On the event loop: a received request is being handled; replies wait for {@link #readBatchEnded}. */
    void readBatchStarted() {
        inReadBatch = true;
    }

    /** On the event loop: the requests received so far are handled; flushes their replies. */
    void readBatchEnded() {
        inReadBatch = false;
        if (batch != null) {
            writeBatch();
        }
        if (unflushed) {
            unflushed = false;
            channel.flush();
        }
    }

    /** On the event loop, when the connection's handler goes: frees replies appended and not yet written. */
    void discardBatch() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
    }
}
