package org.xtreemfs.osd.replication;

import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.osd.CopyObjectRequest;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.FillReplicaResponse;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.osd.stages.OsdRequest.FillReplica;
import org.xtreemfs.osd.stages.PreprocessingStage;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;

/**
 * Fills this OSD's copy of a file that joined its chain as a filling replica (OSD_FILL_REPLICA): asks the fill source
 * for the file's size, then copies each object of this OSD's stripe position up to it by sending OSD_COPY_OBJECT to
 * itself, one at a time, at most the fill's rate: after each copy it waits until the rate times the time since the
 * fill started covers the bytes copied, so no more than one object is ever ahead of the rate, and the whole fill,
 * answered after the last wait, never exceeds it. Each copy passes the fair queue as the volume's best-effort fill flow and the file's
 * storage lane like a write (StorageStage, FillProgress), so forwarded updates arriving meanwhile are never
 * overwritten and objects their updates created after the size was asked are copied by those updates.
 *
 * <p>Bounded: {@code fillsMax} fills run at once on their own threads ({@code osd-replica-fill}), as many wait; beyond
 * that a fill is OVERLOADED. A fill request is answered when done, with what it copied, or with the first error
 * (OVERLOADED answers of a copy are retried with back-off, for as long as the copy timeout).
 */
public final class ReplicaFiller implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFiller.class);
    /** A copy that stays OVERLOADED (queues full) this long fails the fill. */
    public static final long COPY_RETRY_MS = 60_000;

    private final OsdServiceClient osds;
    private final UuidResolver resolver;
    private final Supplier<InetSocketAddress> ownAddress;
    private final long defaultBytesPerSecond;
    private final ThreadPoolExecutor threads;
    private final AtomicLong fillsCompleted = new AtomicLong();
    private final AtomicLong fillsFailed = new AtomicLong();

    /**
     * @param ownAddress where this OSD serves RPC (the copies are sent there)
     * @param defaultBytesPerSecond osd.replication.fillBytesPerSecond: the rate of a fill that names none
     */
    public ReplicaFiller(OsdServiceClient osds, UuidResolver resolver, Supplier<InetSocketAddress> ownAddress,
            long defaultBytesPerSecond, int fillsMax) {
        this.osds = osds;
        this.resolver = resolver;
        this.ownAddress = ownAddress;
        this.defaultBytesPerSecond = defaultBytesPerSecond;
        this.threads = new ThreadPoolExecutor(fillsMax, fillsMax, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(fillsMax), runnable -> {
                    Thread thread = new Thread(runnable, "osd-replica-fill");
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /** Takes authorized fill requests out of the storage path (they queue their copies themselves). */
    public PreprocessingStage.Next routing(PreprocessingStage.Next next) {
        return authorized -> {
            if (authorized.request() instanceof FillReplica) {
                start(authorized);
            } else {
                next.accept(authorized);
            }
        };
    }

    private void start(AuthorizedRequest authorized) throws RpcException {
        try {
            threads.execute(() -> fill(authorized));
        } catch (RejectedExecutionException e) {
            throw RpcException.overloaded("this OSD runs and queues " + threads.getMaximumPoolSize() + " replica fills"
                    + " (osd.replication.fillsMax) already; retry later");
        }
    }

    private void fill(AuthorizedRequest authorized) {
        FillReplica request = (FillReplica) authorized.request();
        long rate = request.rateBytesPerSecond() > 0 ? request.rateBytesPerSecond() : defaultBytesPerSecond;
        String source = authorized.chain().fillSourceUuid().orElseThrow();
        long startNanos = System.nanoTime();
        long objects = 0;
        long bytes = 0;
        try {
            var user = request.call().userCredentials();
            InetSocketAddress sourceAddress = resolver.resolve(source).get(COPY_RETRY_MS, TimeUnit.MILLISECONDS);
            long sizeBytes = osds.getFileSize(sourceAddress, user, FileRequest.newBuilder()
                    .setCredentials(request.credentials()).setFileId(request.fileId()).build())
                    .get(COPY_RETRY_MS, TimeUnit.MILLISECONDS).getSizeBytes();
            int objectSize = authorized.layout().objectSizeBytes();
            long lastObject = sizeBytes == 0 ? -1 : (sizeBytes - 1) / objectSize;
            for (long object = authorized.layout().position(); object <= lastObject;
                    object += authorized.layout().width()) {
                bytes += copy(user, request, object);
                objects++;
                // The rate bound: the next copy (and the answer) waits until rate x elapsed covers what was copied.
                long dueNanos = startNanos + (long) Math.ceil(bytes * 1e9 / rate);
                long waitNanos = dueNanos - System.nanoTime();
                if (waitNanos > 0) {
                    TimeUnit.NANOSECONDS.sleep(waitNanos);
                }
            }
            long durationMs = (System.nanoTime() - startNanos) / 1_000_000;
            LOG.info("filled file {} from {}: {} objects, {} bytes in {} ms", request.fileId(), source, objects, bytes,
                    durationMs);
            fillsCompleted.incrementAndGet();
            request.call().respond(FillReplicaResponse.newBuilder().setObjectsCopied(objects).setBytesCopied(bytes)
                    .setDurationMs(durationMs).build());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed(request, RpcException.internal("OSD is shutting down; the fill of file " + request.fileId()
                    + " stopped after " + objects + " objects"));
        } catch (RpcException e) {
            failed(request, e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            failed(request, cause instanceof RpcException rpc ? rpc : RpcException.overloaded("the fill of file "
                    + request.fileId() + " from " + source + " failed after " + objects + " objects: " + cause
                    + "; send OSD_FILL_REPLICA again (objects copied are not copied twice)"));
        }
    }

    /** One object through this OSD's own pipeline; OVERLOADED answers are retried with back-off. */
    private long copy(org.xtreemfs.interfaces.rpc.UserCredentials user, FillReplica request, long object)
            throws InterruptedException, ExecutionException, TimeoutException, RpcException {
        long giveUpNanos = System.nanoTime() + COPY_RETRY_MS * 1_000_000;
        long backOffMs = 10;
        while (true) {
            try {
                return osds.copyObject(ownAddress.get(), user, CopyObjectRequest.newBuilder()
                        .setCredentials(request.credentials()).setFileId(request.fileId()).setObjectNumber(object)
                        .build()).get(COPY_RETRY_MS, TimeUnit.MILLISECONDS).getBytesCopied();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RpcException rpc) || rpc.errorType() != ErrorType.OVERLOADED
                        || System.nanoTime() > giveUpNanos) {
                    throw e;
                }
                Thread.sleep(backOffMs);
                backOffMs = Math.min(1_000, backOffMs * 2);
            }
        }
    }

    private void failed(FillReplica request, RpcException error) {
        fillsFailed.incrementAndGet();
        LOG.warn("fill of file {} failed: {}", request.fileId(), error.getMessage());
        request.call().fail(error);
    }

    public long fillsCompleted() {
        return fillsCompleted.get();
    }

    public long fillsFailed() {
        return fillsFailed.get();
    }

    /** Fills running or waiting. */
    public int fillsActive() {
        return threads.getActiveCount() + threads.getQueue().size();
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
