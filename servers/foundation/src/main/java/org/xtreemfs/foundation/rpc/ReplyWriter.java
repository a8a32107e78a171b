package org.xtreemfs.foundation.rpc;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
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
 *   <li>a reply made on another thread (a storage worker) is queued for the event loop without waking it, and one
 *       flush task per batch is queued behind it, which wakes the loop: the replies that come while the loop is
 *       waking up or busy go out together.
 * </ul>
 *
 * <p>Invariant: every reply has a flush queued on the event loop after it. A writer that finds a flush already
 * scheduled ({@link #flushScheduled} set) queued its reply before the scheduled task clears the flag, and that task
 * queues the actual flush only after clearing it, so behind every such reply.
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
    private final Runnable flushNow;
    private final Runnable clearThenFlush;

    ReplyWriter(Channel channel, AtomicLong batchedReplies) {
        this.channel = channel;
        this.batchedReplies = batchedReplies;
        this.flushNow = channel::flush;
        this.clearThenFlush = () -> {
            flushScheduled.set(false);
            channel.eventLoop().execute(flushNow); // behind every reply queued before the flag was cleared
        };
    }

    /** Sends one encoded reply (ownership passes to the transport). */
    void send(ByteBuf record) {
        if (channel.eventLoop().inEventLoop()) {
            channel.write(record, channel.voidPromise());
            flushUnlessInReadBatch();
            return;
        }
        channel.write(record, channel.voidPromise()); // queued lazily: wakes nobody
        if (flushScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(clearThenFlush);
        }
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
