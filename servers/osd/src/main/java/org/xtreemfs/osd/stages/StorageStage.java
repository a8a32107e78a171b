package org.xtreemfs.osd.stages;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.FileSegment;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stage.Stage;
import org.xtreemfs.foundation.stage.StageHandler;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.foundation.stage.StageShutdownException;
import org.xtreemfs.interfaces.common.NewFileSize;
import org.xtreemfs.interfaces.common.OsdWriteResponse;
import org.xtreemfs.interfaces.osd.GetFileSizeResponse;
import org.xtreemfs.interfaces.osd.ReadResponse;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.osd.CopyObjectResponse;
import org.xtreemfs.osd.replication.FillProgress;
import org.xtreemfs.osd.replication.XLocVersions;
import org.xtreemfs.osd.stages.OsdRequest.CopyObject;
import org.xtreemfs.osd.stages.OsdRequest.FsyncFile;
import org.xtreemfs.osd.stages.OsdRequest.GetFileSize;
import org.xtreemfs.osd.stages.OsdRequest.ReadObject;
import org.xtreemfs.osd.stages.OsdRequest.TruncateFile;
import org.xtreemfs.osd.stages.OsdRequest.UnlinkFile;
import org.xtreemfs.osd.stages.OsdRequest.WriteObject;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.stages.StorageWork.DeleteObjects;
import org.xtreemfs.osd.storage.DeletionQueue;
import org.xtreemfs.osd.storage.FileMetadata;
import org.xtreemfs.osd.replication.ChainForwarder;
import org.xtreemfs.osd.replication.CleanVersions;
import org.xtreemfs.osd.storage.ObjectRegion;
import org.xtreemfs.osd.storage.ObjectStorage;

/**
 * Runs storage work on a pool of threads. {@link FileAccessOrder} decides what of one file may run together:
 * reads of a file run concurrently, as do writes to different objects of it; accesses of one object where one
 * is a write, and whole-file work (truncate, unlink, fsync, size, deletion), run in arrival order. Answers each
 * request's call exactly once and then reports the completion (so the QoS stage may release the next request).
 */
public final class StorageStage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StorageStage.class);

    private final ObjectStorage store;
    private final ChainForwarder forwarder;
    private final DeletionQueue deletions;
    private final Consumer<AuthorizedRequest> onRequestCompleted;
    private final FileAccessOrder order;
    /** Runs released work; its queue holds at most what {@link #order} admitted, so submitting never fails. */
    private final Stage<StorageWork> workers;
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong filesDeleted = new AtomicLong();
    private final AtomicLong expiredCount = new AtomicLong();
    /** Whether a request's XLoc version is current: older ones are refused (XLOC_OUTDATED). */
    private final XLocVersions xlocVersions;
    /** Storage I/O failures of requests, and whether they make this OSD leave its chains. */
    private final StorageHealth health;
    /** Objects of files being filled here that were copied from the fill source already. */
    private final FillProgress fillProgress = new FillProgress();
    private final AtomicLong objectsCopied = new AtomicLong();
    private final AtomicLong bytesCopied = new AtomicLong();
    /**
     * The thread's {@link Runner}: on a storage worker the one work released while it finished its current work,
     * which it runs next (see {@link #runReleased}); on a thread inside {@link #inlineAfter} the one small request
     * released while it submitted, which it runs itself. Null on other threads.
     */
    private final ThreadLocal<Runner> runners = new ThreadLocal<>();
    /** Which requests a submitting thread runs itself (see {@link #inlineAfter}). */
    private final InlineRule inlineRule;
    /**
     * Times inline runs and their pause ({@link InlineRule}) with its monotonic time: the OSD's clock (System.nanoTime
     * in production), so that in a test a manual clock decides what is slow, not the machine's load.
     */
    private final Clock clock;
    /** Until this monotonic time no request runs on a submitting thread: one there was slow (see {@link InlineRule}). */
    private volatile long inlinePausedUntilNanos;
    private final AtomicLong inlineRuns = new AtomicLong();
    private final AtomicLong inlinePauses = new AtomicLong();
    /** Slow inline runs since the last fast one or pause (updated racily by network threads: a heuristic's count). */
    private volatile int inlineSlowRunsInARow;

    /**
     * Which requests a thread submitting through {@link #inlineAfter} runs itself: reads and unsynced writes of
     * unreplicated files of at most {@code bytesMax} bytes (0: none). A run that took longer than {@code slowNanos}
     * probably waited for the disk (a page-cache hit of a small read or write takes a few microseconds), and meanwhile
     * that thread, the connection's network thread, read nothing else, so the disk saw one request at a time. After
     * {@code slowRunsInARow} such runs in a row the next requests go to the workers for {@code pauseNanos}, after
     * which they are tried on the submitting thread again. In a row, because a thread that merely lost its CPU to
     * other processes for a moment (a loaded machine) is slow too, and one such run must not switch the path off.
     */
    public record InlineRule(int bytesMax, long slowNanos, int slowRunsInARow, long pauseNanos) {
        /** Every request goes to the workers. */
        public static final InlineRule NEVER = new InlineRule(0, 0, 1, 0);
        /** A page-cache miss of this machine's disk is slower than this; a page-cache hit far faster (see above). */
        public static final long SLOW_NANOS_DEFAULT = 100_000;
        /** Three slow runs in a row: a cold working set, not one preempted thread. */
        public static final int SLOW_RUNS_IN_A_ROW_DEFAULT = 3;
        /** Three slow probes per 50 ms block a network thread for a few percent of the time on a cold working set. */
        public static final long PAUSE_NANOS_DEFAULT = 50_000_000;

        public InlineRule {
            if (bytesMax < 0 || slowNanos < 0 || slowRunsInARow < 1 || pauseNanos < 0) {
                throw new IllegalArgumentException("inline rule needs bytesMax, slowNanos, pauseNanos >= 0 and"
                        + " slowRunsInARow >= 1, got " + bytesMax + ", " + slowNanos + ", " + slowRunsInARow + ", "
                        + pauseNanos);
            }
        }

        /** Requests up to {@code bytesMax} bytes, with the default slowness and pause. */
        public static InlineRule upTo(int bytesMax) {
            return new InlineRule(bytesMax, SLOW_NANOS_DEFAULT, SLOW_RUNS_IN_A_ROW_DEFAULT, PAUSE_NANOS_DEFAULT);
        }
    }

    /** What one thread runs next, without handing it to another thread. */
    private static final class Runner {
        /** A submitting thread's runner: takes only small requests, and only while {@link #active}. */
        final boolean inline;
        /** A worker's always; a submitting thread's only inside {@link #inlineAfter}. */
        boolean active;
        StorageWork next;

        Runner(boolean inline) {
            this.inline = inline;
            this.active = !inline;
        }
    }
    private final AtomicLong readsServed = new AtomicLong();
    /** Which of this OSD's files have updates its successors have not acknowledged (reads of them go down). */
    private final CleanVersions cleanVersions = new CleanVersions();
    private final Supplier<ReadResponse> loadReport;

    /**
     * @param queueCapacity bound of the works admitted and not yet finished (running or waiting); the QoS stage
     *     keeps the requests in flight below it
     * @param concurrentWithinFile false: one work of a file at a time, in arrival order (a device with one head;
     *     see {@link FileAccessOrder})
     * @param onRequestCompleted called once with each {@link AuthorizedRequest} after it is answered
     * @param forwarder sends applied updates of replicated files down their chain; null: this OSD serves
     *     unreplicated files only (an update with a successor then fails)
     * @param loadReport this OSD's load as every read answer reports it (ReadResponse.queued_requests and
     *     write_back_dirty_bytes), read when the answer is built
     * @param xlocVersions the OSD's one record of each file's current XLoc version, checked here on the file's lane
     * @param health counts the storage I/O failures of requests and answers them
     */
    public StorageStage(ObjectStorage store, DeletionQueue deletions, int threads, int queueCapacity,
            boolean concurrentWithinFile, Clock clock, Consumer<AuthorizedRequest> onRequestCompleted,
            ChainForwarder forwarder, Supplier<ReadResponse> loadReport, XLocVersions xlocVersions,
            StorageHealth health) {
        this(store, deletions, threads, queueCapacity, concurrentWithinFile, clock, onRequestCompleted, forwarder,
                loadReport, xlocVersions, health, InlineRule.NEVER);
    }

    /** As above; {@code inlineRule} says which requests a thread submitting through {@link #inlineAfter} runs itself. */
    public StorageStage(ObjectStorage store, DeletionQueue deletions, int threads, int queueCapacity,
            boolean concurrentWithinFile, Clock clock, Consumer<AuthorizedRequest> onRequestCompleted,
            ChainForwarder forwarder, Supplier<ReadResponse> loadReport, XLocVersions xlocVersions,
            StorageHealth health, InlineRule inlineRule) {
        this.inlineRule = java.util.Objects.requireNonNull(inlineRule, "inlineRule");
        this.clock = clock;
        this.inlinePausedUntilNanos = clock.monotonicNanos();
        this.health = health;
        this.forwarder = forwarder;
        this.loadReport = loadReport;
        this.store = store;
        this.xlocVersions = xlocVersions;
        this.deletions = deletions;
        this.onRequestCompleted = onRequestCompleted;
        this.order = new FileAccessOrder(queueCapacity, concurrentWithinFile);
        this.workers = Stage.start("storage", queueCapacity, threads, clock, new StageHandler<>() {
            @Override
            public void handle(StorageWork work) {
                Runner runner = runners.get();
                if (runner == null) {
                    runner = new Runner(false);
                    runners.set(runner);
                }
                for (StorageWork current = work; current != null; ) {
                    try {
                        execute(current);
                    } finally {
                        release(current);
                    }
                    current = runner.next;
                    runner.next = null;
                }
            }

            @Override
            public void onFailure(StorageWork work, Exception error) {
                // Only an Error gets here (execute catches exceptions, and its finally already reported the
                // completion to the QoS stage): answer the caller, or retry a deletion later.
                if (work instanceof AuthorizedRequest authorized) {
                    authorized.request().call().fail(RpcException.internal("OSD storage failed on file "
                            + authorized.fileId() + ": " + error.getMessage()));
                } else {
                    deletions.retryLater(work.fileId());
                }
            }

            @Override
            public void onDiscarded(StorageWork work, StageShutdownException reason) {
                discard(work);
                release(work);
            }
        });
    }

    /**
     * Due deletions of files without objects that one metadata write removes at most; the next ones are admitted after
     * it. Each admitted deletion holds a place of the stage until that write, and the QoS stage leaves 64 places per
     * storage thread to work besides its requests (see OsdServer's queue capacity), so a batch never crowds them out.
     */
    static final int DELETIONS_PER_WRITE_MAX = 64;

    /** Admits work behind the conflicting earlier work of its file; false when the stage is full. */
    public boolean offer(StorageWork work) {
        return admit(work, null);
    }

    /**
     * {@link #offer} of due deletions, from the deletion scheduler's thread. A deletion that may run now of a file with
     * no object here (never written, or a stripe position a small file never reached: most deleted files) runs on the
     * calling thread, which would otherwise wake a worker per deleted file only to find nothing to remove (session
     * 14), and such deletions are removed together: their queue entries, XLoc versions and size records in ONE
     * metadata write per {@link #DELETIONS_PER_WRITE_MAX} (a RocksDB write per file before, session 16). Each is
     * admitted like any work of its file, so it stays ordered with them; a file with objects goes to the workers
     * (removing them may take a while). Returns the files the stage could not take now (full or shutting down), which
     * the caller queues again; also one whose admission failed (an exception of the existence check), so that every
     * file given ends handed over or refused.
     */
    public List<String> offerDeletions(List<String> fileIds) {
        List<String> refused = new ArrayList<>(0);
        List<DeleteObjects> withoutObjects = new ArrayList<>(Math.min(fileIds.size(), DELETIONS_PER_WRITE_MAX));
        try {
            for (String fileId : fileIds) {
                boolean admitted;
                try {
                    admitted = admit(new DeleteObjects(fileId), withoutObjects);
                } catch (RuntimeException e) {
                    // E.g. the existence check failed: this file is refused (queued again), the others go on.
                    LOG.warn("storage: admitting the deletion of file {} failed; will retry", fileId, e);
                    admitted = false;
                }
                if (!admitted) {
                    refused.add(fileId);
                }
                if (withoutObjects.size() == DELETIONS_PER_WRITE_MAX) {
                    deleteWithoutObjects(withoutObjects);
                    withoutObjects.clear();
                }
            }
        } finally {
            deleteWithoutObjects(withoutObjects); // also those admitted before a failure: else their files stay blocked
        }
        return refused;
    }

    /**
     * Admits {@code work}; when it may run now it goes to the workers, or, given {@code withoutObjects} (a deletion's),
     * into that list if its file has no object here, for {@link #deleteWithoutObjects}. False when the stage is full or
     * shutting down (the caller fails the request or keeps the deletion queued).
     */
    private boolean admit(StorageWork work, List<DeleteObjects> withoutObjects) {
        switch (order.admit(work)) {
            case FULL:
                return false;
            case RUN_NOW:
                if (withoutObjects != null && work instanceof DeleteObjects deletion) {
                    boolean hasObjects;
                    try {
                        hasObjects = store.exists(work.fileId());
                    } catch (RuntimeException e) {
                        release(work); // admitted but never run: else every later work of the file waits forever
                        throw e;
                    }
                    if (!hasObjects) {
                        withoutObjects.add(deletion);
                        return true;
                    }
                }
                if (runReleased(work)) {
                    return true;
                }
                release(work); // shutting down
                return false;
            default:
                return true;
        }
    }

    /**
     * Runs admitted deletions of files without objects here (no other work of them runs meanwhile): their records in
     * one atomic metadata write ({@link ObjectStorage#deleteFilesWithoutObjects}), then releases them. A crash before
     * the write leaves every queue entry, and after a restart each deletion runs again (idempotent); after it, none.
     * A failed write leaves them all queued, due again at once.
     */
    private void deleteWithoutObjects(List<DeleteObjects> admitted) {
        if (admitted.isEmpty()) {
            return;
        }
        List<String> fileIds = new ArrayList<>(admitted.size());
        WriteBatch removals = new WriteBatch();
        for (DeleteObjects deletion : admitted) {
            String fileId = deletion.fileId();
            fileIds.add(fileId);
            fillProgress.forget(fileId);
            xlocVersions.removeWith(deletions.addRemoval(removals, fileId), fileId);
        }
        try {
            store.deleteFilesWithoutObjects(fileIds, removals, Durability.BUFFERED);
            for (String fileId : fileIds) {
                deletions.completed(fileId);
            }
            filesDeleted.addAndGet(fileIds.size());
        } catch (IOException | RuntimeException e) {
            LOG.warn("storage: deleting {} files without objects failed; will retry", fileIds.size(), e);
            for (String fileId : fileIds) {
                deletions.retryLater(fileId);
            }
        } finally {
            for (DeleteObjects deletion : admitted) {
                release(deletion);
            }
        }
    }

    /** Finishes {@code done} and runs what that released; at shutdown what it released is discarded instead. */
    private void release(StorageWork done) {
        Deque<StorageWork> finished = new ArrayDeque<>();
        finished.add(done);
        while (!finished.isEmpty()) {
            for (StorageWork next : order.finish(finished.poll())) {
                if (!runReleased(next)) {
                    discard(next);
                    finished.add(next);
                }
            }
        }
    }

    /**
     * Hands released work to the workers; false when they are shutting down. On a storage thread, the first work
     * that its own completion released (the QoS stage's next request, or the next work of the file) is kept for that
     * thread to run right after, instead of waking another worker while this one goes idle: one thread hand-off
     * less per request under load. On a thread inside {@link #inlineAfter}, a small read or write is kept likewise.
     */
    private boolean runReleased(StorageWork work) {
        Runner runner = runners.get();
        if (runner != null && runner.active && runner.next == null && (!runner.inline || runsInline(work))) {
            runner.next = work;
            return true;
        }
        try {
            workers.submit(work);
            return true;
        } catch (StageShutdownException e) {
            return false;
        }
    }

    /**
     * {@code next} (the QoS stage's entry), such that a small read or write it releases at once runs on the calling
     * thread right after it returns (and the QoS stage's lock is free again), instead of on a worker. The caller is
     * the network thread that received the request (osd.preprocessing.threads = 0): handing a 4 KiB request to a
     * worker and its answer back to the network thread cost two thread wake-ups per request, more CPU than the
     * request's own work when its data is in the page cache, and the answer now leaves with the others of its batch
     * (foundation's ReplyWriter). Everything else is unchanged: the QoS stage releases in its order and counts the
     * request in flight, FileAccessOrder admits it, it is answered and completed as on a worker.
     *
     * <p>Only the requests {@link InlineRule} admits run so, and not while paused: slow runs in a row (they waited for
     * the disk, and the network thread with them) send the next ones to the workers for a while, so requests that
     * miss the page cache still reach the disk together.
     */
    public PreprocessingStage.Next inlineAfter(PreprocessingStage.Next next) {
        if (inlineRule.bytesMax() == 0) {
            return next;
        }
        return request -> {
            Runner runner = runners.get();
            if (runner == null) {
                runner = new Runner(true);
                runners.set(runner);
            }
            if (!runner.inline || runner.active) {
                next.accept(request); // a worker, or a submission from inside an inline run: unchanged
                return;
            }
            runner.active = true;
            try {
                next.accept(request);
            } finally {
                try {
                    runCaptured(runner);
                } finally {
                    runner.active = false;
                }
            }
        };
    }

    /** Runs what {@code runner} took, and what that released into it, on this thread. */
    private void runCaptured(Runner runner) {
        while (runner.next != null) {
            StorageWork current = runner.next;
            runner.next = null;
            long startNanos = clock.monotonicNanos();
            try {
                execute(current);
            } catch (Error e) {
                if (current instanceof AuthorizedRequest authorized) {
                    authorized.request().call().fail(RpcException.internal("OSD storage failed on file "
                            + authorized.fileId() + ": " + e));
                }
                throw e;
            } finally {
                long elapsedNanos = clock.monotonicNanos() - startNanos;
                inlineRuns.incrementAndGet();
                if (elapsedNanos <= inlineRule.slowNanos()) {
                    inlineSlowRunsInARow = 0;
                } else if (inlineSlowRunsInARow + 1 < inlineRule.slowRunsInARow()) {
                    inlineSlowRunsInARow++;
                } else {
                    inlineSlowRunsInARow = 0;
                    inlinePausedUntilNanos = startNanos + elapsedNanos + inlineRule.pauseNanos();
                    inlinePauses.incrementAndGet();
                }
                release(current);
            }
        }
    }

    /** Whether a submitting thread may run {@code work} itself (see {@link #inlineAfter}). */
    private boolean runsInline(StorageWork work) {
        if (!(work instanceof AuthorizedRequest authorized)
                || authorized.chain().role() != org.xtreemfs.osd.storage.ReplicaRole.SOLE) {
            return false;
        }
        OsdRequest request = authorized.request();
        int bytesMax = inlineRule.bytesMax();
        boolean small = request instanceof ReadObject read ? !read.replicaFill() && read.length() <= bytesMax
                : request instanceof WriteObject write && !authorized.isSyncedWrite()
                        && write.data().readableBytes() <= bytesMax;
        return small && clock.monotonicNanos() - inlinePausedUntilNanos >= 0;
    }

    /** Requests run on the thread that submitted them (see {@link #inlineAfter}). */
    public long inlineRuns() {
        return inlineRuns.get();
    }

    /** How often a request run on its submitting thread was slow and paused that (see {@link InlineRule}). */
    public long inlinePauses() {
        return inlinePauses.get();
    }

    private void discard(StorageWork work) {
        if (work instanceof AuthorizedRequest authorized) {
            authorized.request().call().fail(RpcException.internal("OSD is shutting down"));
            onRequestCompleted.accept(authorized);
        } else {
            deletions.retryLater(work.fileId());
        }
    }

    private void execute(StorageWork work) {
        if (work instanceof AuthorizedRequest authorized) {
            try {
                if (pastDeadline(authorized.request().call())) {
                    expiredCount.incrementAndGet();
                    throw RpcException.errno(Errno.ETIMEDOUT, "request waited " + waitedMs(authorized.request().call())
                            + " ms in the OSD's queues, past its deadline of " + authorized.request().call().timeoutMs()
                            + " ms; not executed");
                }
                answer(authorized);
            } catch (RpcException e) {
                authorized.request().call().fail(e);
            } catch (IllegalArgumentException e) {
                authorized.request().call().fail(RpcException.invalidArguments(e.getMessage()));
            } catch (IOException | RuntimeException e) {
                LOG.error("storage: {} of file {} failed", authorized.request().getClass().getSimpleName(),
                        authorized.fileId(), e);
                if (e instanceof IOException || e instanceof java.io.UncheckedIOException) {
                    // The storage failed: counted (StorageHealth), a member whose disk keeps failing leaves its chains.
                    authorized.request().call().fail(health.failed(authorized.fileId(),
                            authorized.request().getClass().getSimpleName(),
                            authorized.chain().role() != org.xtreemfs.osd.storage.ReplicaRole.SOLE, e));
                } else {
                    authorized.request().call().fail(RpcException.internal("storage failed on file "
                            + authorized.fileId() + ": " + e));
                }
            } finally {
                onRequestCompleted.accept(authorized);
            }
        } else if (work instanceof DeleteObjects deletion) {
            try {
                fillProgress.forget(deletion.fileId());
                store.deleteFile(deletion.fileId(), xlocVersions.removeWith(
                        deletions.addRemoval(new WriteBatch(), deletion.fileId()), deletion.fileId()),
                        Durability.BUFFERED);
                deletions.completed(deletion.fileId());
                filesDeleted.incrementAndGet();
            } catch (IOException | RuntimeException e) {
                LOG.warn("storage: deleting the objects of file {} failed; will retry", deletion.fileId(), e);
                deletions.retryLater(deletion.fileId());
            }
        }
    }

    /**
     * The caller has given up on a request whose deadline passed while it waited; running it anyway could
     * even apply a stale write after the caller's retry, so it is dropped. Measured on the transport's clock
     * (System.nanoTime), the one {@link RpcCall#receivedNanos()} uses.
     */
    private static boolean pastDeadline(RpcCall call) {
        return call.timeoutMs() > 0 && waitedMs(call) > call.timeoutMs();
    }

    private static long waitedMs(RpcCall call) {
        return (System.nanoTime() - call.receivedNanos()) / 1_000_000;
    }

    private void answer(AuthorizedRequest authorized) throws IOException, RpcException {
        String fileId = authorized.fileId();
        OsdRequest request = authorized.request();
        // With osd.storage.layout=role a file new here is placed by this OSD's role for it (the tail's in the log).
        ObjectStorage store = this.store.forRole(authorized.chain().role());
        ChainLink link = authorized.chain();
        // Whether the request's XLoc is current, on the file's lane where updates are applied in order
        // (XLocVersions, the one authority): an older version is XLOC_OUTDATED, a newer one is recorded.
        xlocVersions.check(fileId, link.xlocVersion(), request.getClass());
        if (!link.filling()) {
            fillProgress.forget(fileId);
        }
        if (request instanceof ReadObject read) {
            Optional<String> successor = authorized.chain().readSuccessorUuid();
            // Head and middle serve a read from their own copy only when it saw acknowledged updates alone
            // (CleanVersions); otherwise the read goes down the chain, where the tail always serves.
            long readStamp = successor.isEmpty() ? 0 : cleanVersions.readStart(fileId);
            if (readStamp >= 0) {
                ObjectRegion region = this.store.readRegion(fileId, authorized.layout(),
                        read.objectNumber(), read.offset(), read.length());
                if (region != null) {
                    // Sent from the object's file (sendfile); the store keeps its bytes until the transfer ends.
                    if (successor.isEmpty() || cleanVersions.readValid(fileId, readStamp)) {
                        bytesRead.addAndGet(region.count());
                        readsServed.incrementAndGet();
                        FileSegment segment = new FileSegment(region.channel(), region.position(), region.count(),
                                region::release);
                        region.transferredBy(segment::transferredByCurrentThread);
                        read.call().respond(loadReport(), segment);
                        return;
                    }
                    region.release();
                    passReadDown(authorized, read, successor.get());
                    return;
                }
                // Read straight into the reply's buffer, behind its message: the bytes land where the socket write
                // takes them from.
                try (RpcCall.PreparedResponse response = read.call().prepareResponse(loadReport(), read.length())) {
                    int stored = this.store.read(fileId, authorized.layout(), read.objectNumber(), read.offset(),
                            read.length(), response.dataTarget());
                    if (successor.isEmpty() || cleanVersions.readValid(fileId, readStamp)) {
                        bytesRead.addAndGet(stored);
                        readsServed.incrementAndGet();
                        response.send(stored);
                        return;
                    }
                }
            }
            passReadDown(authorized, read, successor.get());
        } else if (request instanceof WriteObject write) {
            deletions.syncBeforeData(fileId);
            if (link.filling()) {
                copyFromFillSource(authorized, store, write.objectNumber());
            }
            int length = write.data().readableBytes();
            applyThenForward(authorized, () -> {
                // The tail of a chain writes every update synced: the chain acknowledges only what the tail holds
                // on its disk, so losing any one OSD (or the head's and middle's page caches) loses nothing
                // acknowledged.
                ObjectStorage.WriteOutcome outcome = store.write(fileId, authorized.layout(), write.objectNumber(),
                        write.offset(), write.data().nioBuffer(), authorized.truncateEpoch(),
                        authorized.isSyncedWrite());
                bytesWritten.addAndGet(length);
                OsdWriteResponse.Builder response = OsdWriteResponse.newBuilder();
                if (outcome.sizeGrew()) {
                    response.setNewFileSize(newFileSize(outcome.metadata()));
                }
                return response.build();
            });
        } else if (request instanceof TruncateFile truncate) {
            FileMetadata known = store.metadata(fileId);
            if (Integer.compareUnsigned(authorized.truncateEpoch(), known.truncateEpoch()) < 0) {
                throw RpcException.errno(Errno.EINVAL, "truncate of file " + fileId + " carries truncate epoch "
                        + authorized.truncateEpoch() + ", older than epoch " + known.truncateEpoch()
                        + " this OSD already applied; get a new capability from MRC_FTRUNCATE");
            }
            deletions.syncBeforeData(fileId);
            applyThenForward(authorized, () -> OsdWriteResponse.newBuilder().setNewFileSize(newFileSize(
                    store.truncate(fileId, authorized.layout(), truncate.newSizeBytes(), authorized.truncateEpoch())))
                    .build());
        } else if (request instanceof CopyObject copy) {
            copy.call().respond(CopyObjectResponse.newBuilder()
                    .setBytesCopied(copyFromFillSource(authorized, store, copy.objectNumber())).build());
        } else if (request instanceof UnlinkFile) {
            fillProgress.forget(fileId);
            applyThenForward(authorized, () -> {
                if (!deletions.enqueue(fileId, store.holdsAnything(fileId))) {
                    throw RpcException.overloaded("OSD deletion queue is full at its bound"
                            + " (osd.deletion.pendingMax); retry later");
                }
                return Empty.getDefaultInstance();
            });
        } else if (request instanceof FsyncFile) {
            applyThenForward(authorized, () -> {
                store.fsync(fileId);
                return Empty.getDefaultInstance();
            });
        } else if (request instanceof GetFileSize size) {
            size.call().respond(
                    GetFileSizeResponse.newBuilder().setSizeBytes(store.metadata(fileId).sizeBytes()).build());
        } else {
            throw new IllegalStateException("unhandled request type " + request.getClass().getName());
        }
    }

    /** Sends a read this OSD must not serve to its successor and answers with what comes back, and this OSD's load. */
    private void passReadDown(AuthorizedRequest authorized, ReadObject read, String successorUuid)
            throws RpcException {
        if (forwarder == null) {
            throw RpcException.internal("file " + authorized.fileId() + " has a chain successor (" + successorUuid
                    + ") but this OSD forwards to none");
        }
        forwarder.forwardRead(read, successorUuid).whenComplete((response, error) -> {
            if (error != null) {
                Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                read.call().fail(cause instanceof RpcException rpc ? rpc
                        : RpcException.internal("passing a read of file " + authorized.fileId() + " down failed: "
                                + cause));
                return;
            }
            ByteBuf data;
            try (response) {
                data = response.data().retainedDuplicate();
            }
            read.call().respond(loadReport(), data);
        });
    }

    /** Every read answer carries this OSD's load, so clients route by it without asking (qos.routing). */
    private ReadResponse loadReport() {
        return loadReport.get();
    }

    /** The local part of an update; an RpcException means it changed nothing. */
    private interface LocalUpdate {
        com.google.protobuf.MessageLite apply() throws IOException, RpcException;
    }

    /**
     * Applies an update here and sends it on. An update that changes data (all but fsync) is dirty here from before
     * it touches anything until the successor acknowledges it ({@link CleanVersions}); one that failed part-way
     * here stays dirty (this copy may differ from the rest of the chain).
     */
    private void applyThenForward(AuthorizedRequest authorized, LocalUpdate update) throws IOException, RpcException {
        boolean tracked = authorized.chain().successorUuid().isPresent()
                && !(authorized.request() instanceof FsyncFile);
        String fileId = authorized.fileId();
        if (tracked) {
            cleanVersions.applying(fileId);
        }
        com.google.protobuf.MessageLite response;
        try {
            response = update.apply();
        } catch (RpcException refused) {
            if (tracked) {
                cleanVersions.withdrawn(fileId);
            }
            throw refused;
        } catch (IOException | RuntimeException | Error failed) {
            if (tracked) {
                cleanVersions.unacknowledged(fileId);
            }
            throw failed;
        }
        respondAfterChain(authorized, response, tracked);
    }

    /**
     * Copies a whole object from the fill source unless it is here already (FillProgress; called on the object's
     * lane, so no update of it lands between the read at the source and the write here) and returns the bytes
     * copied. The copy is written synced: once the fill is answered, what it copied survives a crash.
     */
    private int copyFromFillSource(AuthorizedRequest authorized, ObjectStorage store, long objectNumber)
            throws IOException, RpcException {
        String fileId = authorized.fileId();
        if (fillProgress.isPresent(fileId, objectNumber)) {
            return 0;
        }
        if (forwarder == null) {
            throw RpcException.internal("file " + fileId + " is being filled here but this OSD copies from none");
        }
        byte[] bytes = forwarder.fetchObject(authorized.request(), authorized.chain().fillSourceUuid().orElseThrow(),
                objectNumber, authorized.layout().objectSizeBytes());
        if (bytes.length > 0) {
            deletions.syncBeforeData(fileId);
            store.write(fileId, authorized.layout(), objectNumber, 0, java.nio.ByteBuffer.wrap(bytes),
                    authorized.truncateEpoch(), true);
            bytesCopied.addAndGet(bytes.length);
        }
        objectsCopied.incrementAndGet();
        fillProgress.markPresent(fileId, objectNumber);
        return bytes.length;
    }

    /** Objects copied from fill sources (each object of a fill once, on its first update or by the fill). */
    public long objectsCopied() {
        return objectsCopied.get();
    }

    /** Bytes copied from fill sources. */
    public long bytesCopied() {
        return bytesCopied.get();
    }

    /**
     * Answers an update this OSD applied: at once without a successor, else once the rest of the chain has applied
     * it (the forward leaves now, on this lane, so a file's updates reach the successor in this OSD's order). The
     * local part is done either way, so the QoS stage may release the next request meanwhile.
     */
    private void respondAfterChain(AuthorizedRequest authorized, com.google.protobuf.MessageLite response,
            boolean tracked) throws RpcException {
        RpcCall call = authorized.request().call();
        Optional<String> successor = authorized.chain().successorUuid();
        if (successor.isEmpty()) {
            call.respond(response);
            return;
        }
        if (forwarder == null) {
            if (tracked) {
                cleanVersions.unacknowledged(authorized.fileId());
            }
            throw RpcException.internal("file " + authorized.fileId() + " has a chain successor ("
                    + successor.get() + ") but this OSD forwards to none");
        }
        forwarder.forward(authorized.request(), successor.get()).whenComplete((ignored, error) -> {
            if (tracked) {
                if (error == null) {
                    cleanVersions.acknowledged(authorized.fileId());
                } else {
                    cleanVersions.unacknowledged(authorized.fileId());
                }
            }
            if (error == null) {
                call.respond(response);
            } else {
                Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                call.fail(cause instanceof RpcException rpc ? rpc
                        : RpcException.internal("forwarding file " + authorized.fileId() + " failed: " + cause));
            }
        });
    }

    private static NewFileSize newFileSize(FileMetadata metadata) {
        return NewFileSize.newBuilder().setSizeBytes(metadata.sizeBytes())
                .setTruncateEpoch(metadata.truncateEpoch()).build();
    }

    /**
     * Works admitted and not yet finished, over all files. A request's reply goes out before its work gives its place
     * back, so a caller that got every reply of a burst may still find its places taken for a moment (tests wait for
     * 0 before sending a burst as large as the capacity).
     */
    int admittedWorks() {
        return order.size();
    }

    /** Busy share of the storage threads since the previous call (the heartbeat's load). */
    public double sampleBusyFraction() {
        return workers.sampleBusyFraction();
    }

    public StageMetrics metrics() {
        return workers.metrics();
    }

    public long bytesRead() {
        return bytesRead.get();
    }

    public long bytesWritten() {
        return bytesWritten.get();
    }

    public long filesDeleted() {
        return filesDeleted.get();
    }

    /** Reads answered from this OSD's own copy (not passed down the chain). */
    public long readsServed() {
        return readsServed.get();
    }

    /** Files with an update here that the successor has not acknowledged (or whose forward failed). */
    public int replicationDirtyFiles() {
        return cleanVersions.dirtyFiles();
    }

    /** Requests dropped because their caller's deadline passed while they waited. */
    public long expiredCount() {
        return expiredCount.get();
    }

    @Override
    public void close() {
        workers.close();
    }
}
