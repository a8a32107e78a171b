package org.xtreemfs.osd.replication;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.foundation.stubs.UuidResolver;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.TruncateRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.OsdRequest.FsyncFile;
import org.xtreemfs.osd.stages.OsdRequest.ReadObject;
import org.xtreemfs.osd.stages.OsdRequest.TruncateFile;
import org.xtreemfs.osd.stages.OsdRequest.UnlinkFile;
import org.xtreemfs.osd.stages.OsdRequest.WriteObject;

/**
 * Forwards an applied update to the next OSD of the file's chain over the ordinary OSD interface, marked
 * {@code forwarded}, with the client's credentials and capability unchanged: the XCap is signed by the MRC for the
 * file, not for one OSD, and every member checks it like the head did (and charges the volume's share to its own
 * fair queue).
 *
 * <p>Order: the successor must apply a file's updates in the order this OSD applied them, or the replicas could
 * end up different after two overlapping writes. {@link #forward} is called on the file's storage lane right after
 * the local update, so a file's forwards leave in the lane's order; the successor's address is resolved on that
 * thread too (a cached DIR lookup, blocking only on a miss), so no forward overtakes another while waiting for it;
 * one connection per successor keeps the send order; and the successor keeps a file's order through every stage
 * (preprocessing inline on its network thread, the QoS stage's per-volume FIFO, the per-file storage lane).
 *
 * <p>Failure: a successor that cannot be reached (no address, no answer within {@link #FORWARD_TIMEOUT_MS}, a lost
 * connection) fails the update with CHAIN_MEMBER_UNREACHABLE naming it: the client reports that member to the MRC,
 * which removes it from the chain once the DIR shows it dead, and re-sends the update with the new XLoc (the update
 * is idempotent: a write of the same bytes at the same offset, a truncate to the same size under the same epoch,
 * an unlink). An answer of the successor (an errno, an auth failure, XLOC_OUTDATED, or CHAIN_MEMBER_UNREACHABLE for
 * a member further down) is passed on as it is.
 */
public final class ChainForwarder {
    /** How long a forward may take end to end; past it the client sees CHAIN_MEMBER_UNREACHABLE. */
    public static final long FORWARD_TIMEOUT_MS = 30_000;

    private final OsdServiceClient osds;
    private final UuidResolver resolver;
    private final AtomicLong forwarded = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong readsPassedDown = new AtomicLong();

    public ChainForwarder(OsdServiceClient osds, UuidResolver resolver) {
        this.osds = osds;
        this.resolver = resolver;
    }

    /**
     * Sends {@code request} (already applied here) to {@code successorUuid}; the future completes when the rest of
     * the chain has applied it, or fails with the {@link RpcException} to answer the client with. Call on the
     * file's storage lane; a write's data must stay valid until the future completes (the caller answers its own
     * call only then).
     */
    public CompletableFuture<Void> forward(OsdRequest request, String successorUuid) {
        InetSocketAddress address;
        try {
            address = successorAddress(request.fileId(), successorUuid);
        } catch (RpcException unresolved) {
            failed.incrementAndGet();
            return failedWith(RpcException.chainMemberUnreachable(successorUuid, "the next OSD of file "
                    + request.fileId() + "'s chain (" + successorUuid + ") has no known address: "
                    + unresolved.getMessage() + "; report it to the MRC"));
        }
        CompletableFuture<?> sent = send(request, address);
        return sent.handle((ignored, error) -> {
            if (error == null) {
                forwarded.incrementAndGet();
                return null;
            }
            failed.incrementAndGet();
            Throwable cause = cause(error);
            if (cause instanceof RpcTransportException) {
                resolver.invalidate(successorUuid);
            } else if (cause instanceof RpcException answer) {
                throw new CompletionException(answer);
            }
            throw new CompletionException(RpcException.chainMemberUnreachable(successorUuid, "the next OSD of file "
                    + request.fileId() + "'s chain (" + successorUuid + " at " + address + ") did not acknowledge: "
                    + cause.getMessage() + "; report it to the MRC"));
        });
    }

    /**
     * Reads a whole object of the file at a filling replica's source (OSD_READ marked replica_fill, charged to the
     * volume's fill flow there), with the request's credentials, whose newer XLoc raises the source's version fence.
     * Blocks the calling storage lane for at most {@link #FORWARD_TIMEOUT_MS}: the object's lane must stay held
     * from the read at the source to the write here. Returns the stored bytes (possibly none).
     */
    public byte[] fetchObject(OsdRequest request, String sourceUuid, long objectNumber, int objectSizeBytes)
            throws RpcException {
        try {
            InetSocketAddress address = resolver.resolve(sourceUuid).get(FORWARD_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            try (var response = osds.read(address, request.call().userCredentials(), ReadRequest.newBuilder()
                    .setCredentials(request.credentials()).setFileId(request.fileId()).setObjectNumber(objectNumber)
                    .setOffset(0).setLength(objectSizeBytes).setReplicaFill(true).build())
                    .get(FORWARD_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                return response.dataBytes();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RpcException.internal("interrupted while copying object " + objectNumber + " of file "
                    + request.fileId() + " from " + sourceUuid);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = cause(e);
            if (cause instanceof RpcTransportException || cause instanceof TimeoutException) {
                resolver.invalidate(sourceUuid);
            }
            if (cause instanceof RpcException answer) {
                throw answer;
            }
            throw RpcException.overloaded("the fill source of file " + request.fileId() + " (" + sourceUuid
                    + ") did not answer the copy of object " + objectNumber + ": " + cause + "; retry later");
        }
    }

    /**
     * Sends a read that this OSD must not serve from its own copy (the file has an update its successor has not
     * acknowledged, see {@link CleanVersions}) to {@code successorUuid}, which serves it under the same rule; the
     * tail always serves. The future's response (message and data) belongs to the caller, who closes it.
     */
    public CompletableFuture<RpcResponse> forwardRead(ReadObject read, String successorUuid) {
        InetSocketAddress address;
        try {
            address = successorAddress(read.fileId(), successorUuid);
        } catch (RpcException unresolved) {
            return CompletableFuture.failedFuture(unresolved);
        }
        readsPassedDown.incrementAndGet();
        return osds.read(address, read.call().userCredentials(), ReadRequest.newBuilder()
                .setCredentials(read.credentials()).setFileId(read.fileId()).setObjectNumber(read.objectNumber())
                .setOffset(read.offset()).setLength(read.length()).build())
                .exceptionallyCompose(error -> {
                    Throwable cause = cause(error);
                    if (cause instanceof RpcTransportException) {
                        resolver.invalidate(successorUuid);
                    } else if (cause instanceof RpcException answer) {
                        return CompletableFuture.failedFuture(answer);
                    }
                    return CompletableFuture.failedFuture(RpcException.overloaded("the next OSD of file "
                            + read.fileId() + "'s chain (" + successorUuid + " at " + address + ") did not answer a"
                            + " read passed down to it: " + cause.getMessage() + "; retry later"));
                });
    }

    /**
     * The successor's address (a cached DIR lookup, blocking only on a miss), or the error to fail the request with:
     * OVERLOADED when the DIR does not know it, so the client retries.
     */
    private InetSocketAddress successorAddress(String fileId, String successorUuid) throws RpcException {
        try {
            return resolver.resolve(successorUuid).get(FORWARD_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RpcException.internal("interrupted while resolving chain successor " + successorUuid);
        } catch (ExecutionException | TimeoutException e) {
            throw RpcException.overloaded("the next OSD of file " + fileId + "'s chain (" + successorUuid
                    + ") has no known address: " + cause(e).getMessage() + "; retry later");
        }
    }

    /** Reads passed down the chain because the file had an unacknowledged update here. */
    public long readsPassedDownCount() {
        return readsPassedDown.get();
    }

    private CompletableFuture<?> send(OsdRequest request, InetSocketAddress address) {
        var user = request.call().userCredentials();
        if (request instanceof WriteObject write) {
            // The transport releases what it sends: a retained view, so the caller's buffer stays valid.
            return osds.write(address, user, WriteRequest.newBuilder().setCredentials(write.credentials())
                    .setFileId(write.fileId()).setObjectNumber(write.objectNumber()).setOffset(write.offset())
                    .setSync(write.sync()).setForwarded(true).build(), write.data().retainedDuplicate());
        }
        if (request instanceof TruncateFile truncate) {
            return osds.truncate(address, user, TruncateRequest.newBuilder().setCredentials(truncate.credentials())
                    .setFileId(truncate.fileId()).setNewFileSizeBytes(truncate.newSizeBytes()).setForwarded(true)
                    .build());
        }
        FileRequest fileRequest = FileRequest.newBuilder().setCredentials(request.credentials())
                .setFileId(request.fileId()).setForwarded(true).build();
        if (request instanceof UnlinkFile) {
            return osds.unlink(address, user, fileRequest);
        }
        if (request instanceof FsyncFile) {
            return osds.fsync(address, user, fileRequest);
        }
        throw new IllegalArgumentException(request.getClass().getSimpleName() + " does not travel the chain");
    }

    /** Updates the rest of the chain acknowledged. */
    public long forwardedCount() {
        return forwarded.get();
    }

    /** Updates the rest of the chain refused or did not acknowledge. */
    public long failedCount() {
        return failed.get();
    }

    private static CompletableFuture<Void> failedWith(RpcException error) {
        return CompletableFuture.failedFuture(error);
    }

    private static Throwable cause(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
