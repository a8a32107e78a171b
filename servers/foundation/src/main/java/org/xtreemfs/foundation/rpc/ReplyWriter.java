package org.xtreemfs.foundation.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes one connection's replies and flushes them in batches. Every flush is a system call (writev) that on loopback
 * also runs the receiver's TCP processing, and every reply handed from another thread to the event loop used to wake
 * it (an eventfd write and a thread switch): one of each per 4 KiB request. Now:
 *
 * <ul>
 *   <li>a reply made on the event loop while it handles a batch of received requests is flushed once at the end of
 *       that batch ({@link #readBatchEnded}, from {@code channelReadComplete}); elsewhere on the event loop at once;
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
    private final Runnable flushNow;
    private final Runnable clearThenFlush;

    ReplyWriter(Channel channel) {
        this.channel = channel;
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
        if (unflushed) {
            unflushed = false;
            channel.flush();
        }
    }
}
