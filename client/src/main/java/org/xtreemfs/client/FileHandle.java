package org.xtreemfs.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import org.xtreemfs.client.routing.ReadRoute;
import org.xtreemfs.client.striping.ObjectSlice;
import org.xtreemfs.client.striping.StripeLayout;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.qos.routing.StreamClassifier;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.ReplicaFailedRequest;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.NewFileSize;
import org.xtreemfs.interfaces.common.OsdWriteResponse;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.UpdateFileSizeRequest;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.TruncateRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;

/**
 * An open file: reads and writes object ranges directly on the OSDs of its XLoc, striped RAID0 (object n on
 * stripe position n mod width). A replicated file's updates (write, truncate, fsync) go to its head replica, which
 * forwards them down each chain and answers once the tail has them; reads go to the replica the volume's read
 * routing picks per piece ({@link ReadRoute}: by the stream's pattern and the replicas' reported loads). A request
 * is split per object and the pieces are sent in parallel, bounded
 * by the client's in-flight limit. Reads are padded with zeros up to the file size this handle knows (holes
 * and short objects read as zeros), never beyond it. The handle tracks the largest end offset it wrote and
 * reports it to the MRC (MRC_UPDATE_FILE_SIZE with the XCap's truncate epoch) on {@link #fsync} and
 * {@link #close}. The XCap is renewed on use shortly before it expires. Thread-safe.
 */
public final class FileHandle implements AutoCloseable {
    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    /** Data per OSD request at most: well inside the RPC frame limit, and bounds memory per request in flight. */
    static final int REQUEST_DATA_BYTES_MAX = 2 << 20;

    private final Volume volume;
    private final Client client;
    private final String path;
    private final int flags;
    private final String fileId;
    private final StripeLayout layout;
    /** Placed with more than one replica: failed chain members are reported and the chain followed (below). */
    /** Whether the handle's XLoc has more than one replica (it may change when a newer XLoc is adopted). */
    private volatile boolean replicated;
    /** Where updates go: the head replica's OSDs (the only replica of an unreplicated file). Guarded by this. */
    private List<String> stripeOsdUuids;
    /** The file's chains (the adopted XLoc's), for read routing and the tails. Guarded by this. */
    private ReplicaChain chain;
    private final org.xtreemfs.interfaces.common.ReadRouting readRouting;
    /**
     * Created at the first read, so that round-robin binding numbers streams in order of first read; made again
     * for a re-formed chain. Guarded by this.
     */
    private ReadRoute readRoute;
    /** A re-formed chain was adopted: fsync it before the next request (its new tail may hold buffered data). */
    private boolean fsyncAfterReformation;

    private FileCredentials credentials;
    private long capabilityReceivedMs;
    /** The size the MRC reported (at open, or set by truncate); the floor of this handle's view of the size. */
    private long knownSizeBytes;
    /** The largest end offset this handle wrote since the last truncate. */
    private long writtenEndBytes;
    private boolean sizeReportPending;
    private final BitSet stripePositionsWrittenSinceFsync = new BitSet();
    private boolean closed;

    FileHandle(Volume volume, String path, int flags, FileCredentials credentials, Stat stat) throws XtreemFSException {
        this.volume = volume;
        this.client = volume.client();
        this.path = path;
        this.flags = flags;
        this.credentials = credentials;
        this.capabilityReceivedMs = System.currentTimeMillis();
        this.fileId = credentials.getXcap().getFileId();
        this.knownSizeBytes = stat.getSizeBytes();
        if ((stat.getMode() & S_IFMT) == S_IFDIR) {
            throw new XtreemFSException(Errno.EISDIR, "open " + volume.describe(path) + ": is a directory;"
                    + " list it with Volume.readdir");
        }
        if (credentials.getXlocs().getReplicasCount() == 0
                || credentials.getXlocs().getReplicas(0).getOsdUuidsCount() == 0) {
            throw new XtreemFSException(Errno.EIO, "open " + volume.describe(path) + ": the MRC returned an XLoc"
                    + " without OSDs for file " + fileId);
        }
        ReplicaChain chain;
        try {
            chain = ReplicaChain.of(credentials.getXlocs());
        } catch (IllegalArgumentException malformed) {
            throw new XtreemFSException(Errno.EIO, "open " + volume.describe(path) + ": the MRC returned an unusable"
                    + " XLoc for file " + fileId + ": " + malformed.getMessage());
        }
        Replica replica = credentials.getXlocs().getReplicas(0);
        this.replicated = chain.length() > 1;
        this.stripeOsdUuids = chain.headOsds();
        this.chain = chain;
        this.readRouting = ReplicationRules.readRouting(credentials.getXlocs());
        StripingPolicy policy = replica.getStripingPolicy();
        int objectSize = policy.getObjectSizeBytes() > 0 ? policy.getObjectSizeBytes() : StripingRules.UNSET_OBJECT_SIZE_BYTES;
        int width = policy.getWidth() > 0 ? Math.min(policy.getWidth(), stripeOsdUuids.size()) : stripeOsdUuids.size();
        this.layout = new StripeLayout(objectSize, width);
    }

    public String path() {
        return path;
    }

    /** "<volume id>:<inode number>". */
    public String fileId() {
        return fileId;
    }

    public StripeLayout layout() {
        return layout;
    }

    /** The OSD UUIDs of the stripe that takes updates (the head replica's), by stripe position. */
    public synchronized List<String> stripeOsdUuids() {
        return stripeOsdUuids;
    }

    /** Replica {@code replicaIndex}'s OSD UUIDs (0 = head, the last = tail), by stripe position. */
    public synchronized List<String> replicaOsdUuids(int replicaIndex) {
        return chain.replicaOsds(replicaIndex);
    }

    /** The file's read routing (from its XLoc, the volume's policy). */
    public org.xtreemfs.interfaces.common.ReadRouting readRouting() {
        return readRouting;
    }

    private synchronized ReadRoute readRoute() {
        if (readRoute == null) {
            readRoute = new ReadRoute(chain, readRouting, client.replicaLoads(), client.nextReadStreamOrdinal());
        }
        return readRoute;
    }

    public synchronized FileCredentials credentials() {
        return credentials;
    }

    /** The file size as this handle sees it: the MRC's size, grown by this handle's own writes. */
    public synchronized long sizeBytes() {
        return Math.max(knownSizeBytes, writtenEndBytes);
    }

    /** The file's attributes from the MRC, with the size this handle wrote but has not reported yet. */
    public Stat getattr() throws XtreemFSException {
        Stat stat = volume.getattr(path);
        long size = sizeBytes();
        return size > stat.getSizeBytes() ? stat.toBuilder().setSizeBytes(size).build() : stat;
    }

    /**
     * Reads up to {@code length} bytes at {@code offset} into {@code buffer}; returns the number read, which is
     * less than {@code length} only at the end of the file (0 at or beyond it).
     */
    public int read(long offset, byte[] buffer, int bufferOffset, int length) throws XtreemFSException {
        String operation = "read " + length + " bytes at offset " + offset + " of " + volume.describe(path);
        checkRange(operation, offset, buffer, bufferOffset, length);
        checkOpen(operation);
        if (!OpenFlags.canRead(flags)) {
            throw new XtreemFSException(Errno.EBADF, operation + ": the file is not open for reading");
        }
        long size = sizeBytes();
        if (offset >= size || length == 0) {
            return 0;
        }
        int readLength = (int) Math.min(length, size - offset);
        ensureFreshCapability(operation);
        followingTheChain(operation, (used, heads) -> {
            List<CompletableFuture<?>> pieces = new ArrayList<>();
            ReadRoute route = readRoute();
            StreamClassifier stream = route.observe(offset, readLength);
            for (ObjectSlice slice : layout.slices(offset, readLength, REQUEST_DATA_BYTES_MAX)) {
                // Any replica may serve a read: a member with an update its successor has not acknowledged passes
                // the read down the chain (servers/osd README, "Consistent reads").
                int target = bufferOffset + slice.offsetInRequest();
                pieces.add(limited(operation, () -> {
                    // Routed when the piece may leave, with the loads reported up to then.
                    String osdUuid = route.osdFor(layout.stripePosition(slice.objectNumber()), stream);
                    return callOsd(osdUuid, address -> client.osd().read(
                            address, client.credentials(), ReadRequest.newBuilder().setCredentials(used)
                                    .setFileId(fileId).setObjectNumber(slice.objectNumber())
                                    .setOffset(slice.offsetInObject()).setLength(slice.lengthBytes()).build()))
                            .thenApply(response -> {
                                try (response) {
                                    client.noteReadAnswer(osdUuid, response);
                                    ByteBuf data = response.data();
                                    int stored = Math.min(data.readableBytes(), slice.lengthBytes());
                                    data.getBytes(data.readerIndex(), buffer, target, stored);
                                    // Holes and short objects inside the file read as zeros.
                                    Arrays.fill(buffer, target + stored, target + slice.lengthBytes(), (byte) 0);
                                    return stored;
                                }
                            });
                }));
            }
            awaitAll(operation, pieces);
        });
        return readLength;
    }

    /** Reads up to {@code length} bytes at {@code offset}; the array is shorter only at the end of the file. */
    public byte[] read(long offset, int length) throws XtreemFSException {
        byte[] buffer = new byte[(int) Math.max(0, Math.min(length, sizeBytes() - offset))];
        int read = read(offset, buffer, 0, buffer.length);
        return read == buffer.length ? buffer : Arrays.copyOf(buffer, read);
    }

    /**
     * Writes {@code length} bytes at {@code offset} (at the current end of the file when opened with O_APPEND)
     * and returns the offset written at. The new size reaches the MRC on fsync or close.
     */
    public long write(long offset, byte[] buffer, int bufferOffset, int length) throws XtreemFSException {
        String operation = "write " + length + " bytes at offset " + offset + " of " + volume.describe(path);
        checkRange(operation, offset, buffer, bufferOffset, length);
        checkOpen(operation);
        if (!OpenFlags.canWrite(flags)) {
            throw new XtreemFSException(Errno.EBADF, operation + ": the file is not open for writing");
        }
        long writeOffset = OpenFlags.has(flags, OpenFlags.O_APPEND) ? sizeBytes() : offset;
        if (length == 0) {
            return writeOffset;
        }
        ensureFreshCapability(operation);
        BitSet positions = new BitSet();
        for (ObjectSlice slice : layout.slices(writeOffset, length, REQUEST_DATA_BYTES_MAX)) {
            positions.set(layout.stripePosition(slice.objectNumber()));
        }
        try {
            // Every piece again after a re-formation: a write is idempotent by offset (same bytes, same place).
            followingTheChain(operation, (used, heads) -> {
                List<CompletableFuture<?>> pieces = new ArrayList<>();
                for (ObjectSlice slice : layout.slices(writeOffset, length, REQUEST_DATA_BYTES_MAX)) {
                    String osdUuid = heads.get(layout.stripePosition(slice.objectNumber()));
                    int source = bufferOffset + slice.offsetInRequest();
                    // A fresh buffer per attempt: the transport releases the buffer it sent. Wrapping does not copy.
                    pieces.add(limited(operation, () -> callOsd(osdUuid, address -> client.osd().write(
                            address, client.credentials(), WriteRequest.newBuilder().setCredentials(used)
                                    .setFileId(fileId).setObjectNumber(slice.objectNumber())
                                    .setOffset(slice.offsetInObject()).build(),
                            Unpooled.wrappedBuffer(buffer, source, slice.lengthBytes())))
                            .thenApply(this::noteOsdFileSize)));
                }
                awaitAll(operation, pieces);
            });
        } finally {
            synchronized (this) {
                stripePositionsWrittenSinceFsync.or(positions);
            }
        }
        synchronized (this) {
            writtenEndBytes = Math.max(writtenEndBytes, writeOffset + length);
            sizeReportPending = true;
        }
        volume.invalidate(path);
        return writeOffset;
    }

    /** Writes the whole array at {@code offset}. */
    public long write(long offset, byte[] data) throws XtreemFSException {
        return write(offset, data, 0, data.length);
    }

    /**
     * Sets the file size: the MRC issues an XCap with a new truncate epoch, every OSD of the stripe cuts or
     * drops its objects, and the MRC records the size with the new epoch (so older size reports cannot undo it).
     */
    public void truncate(long newSizeBytes) throws XtreemFSException {
        String operation = "truncate " + volume.describe(path) + " to " + newSizeBytes + " bytes";
        checkOpen(operation);
        if (newSizeBytes < 0) {
            throw new XtreemFSException(Errno.EINVAL, operation + ": the size must not be negative");
        }
        if (!OpenFlags.canWrite(flags)) {
            throw new XtreemFSException(Errno.EBADF, operation + ": the file is not open for writing");
        }
        ensureFreshCapability(operation);
        XCap truncateCap = volume.mrcCall(operation + " (new truncate epoch at the MRC)", false,
                (mrc, address) -> mrc.ftruncate(address, client.credentials(),
                        XCapRequest.newBuilder().setXcap(credentials().getXcap()).build())).getXcap();
        FileCredentials truncateCredentials;
        synchronized (this) {
            credentials = credentials.toBuilder().setXcap(truncateCap).build();
            capabilityReceivedMs = System.currentTimeMillis();
            truncateCredentials = credentials;
        }
        truncateObjects(operation, truncateCredentials, newSizeBytes);
        reportSize(operation, truncateCap, newSizeBytes, false);
        synchronized (this) {
            knownSizeBytes = newSizeBytes;
            writtenEndBytes = 0;
            sizeReportPending = false;
        }
        volume.invalidate(path);
    }

    /**
     * Completes an O_TRUNC open: the MRC already set the size to 0 under a new truncate epoch, which the
     * open's XCap carries, so only the OSDs' objects remain to be cut.
     */
    void truncateObjectsAfterOpen() throws XtreemFSException {
        String operation = "open with O_TRUNC " + volume.describe(path);
        truncateObjects(operation, credentials(), 0);
        synchronized (this) {
            knownSizeBytes = 0;
            writtenEndBytes = 0;
            sizeReportPending = false;
        }
    }

    /** OSD_TRUNCATE on every OSD of the head replica, in parallel; each forwards it down its chain. */
    private void truncateObjects(String operation, FileCredentials truncateCredentials, long newSizeBytes)
            throws XtreemFSException {
        followingTheChain(operation, (used, heads) -> {
            // The truncate's XCap (its epoch) with the XLoc as it is now.
            FileCredentials sent = truncateCredentials.toBuilder().setXlocs(used.getXlocs()).build();
            List<CompletableFuture<?>> osdTruncates = new ArrayList<>();
            for (String osdUuid : heads) {
                osdTruncates.add(callOsd(osdUuid, address -> client.osd().truncate(address,
                        client.credentials(), TruncateRequest.newBuilder().setCredentials(sent)
                                .setFileId(fileId).setNewFileSizeBytes(newSizeBytes).build())));
            }
            awaitAll(operation, osdTruncates);
        });
    }

    /** Makes written data durable on the OSDs written since the last fsync, then reports the size to the MRC. */
    public void fsync() throws XtreemFSException {
        String operation = "fsync " + volume.describe(path);
        checkOpen(operation);
        BitSet positions;
        synchronized (this) {
            positions = (BitSet) stripePositionsWrittenSinceFsync.clone();
        }
        if (!positions.isEmpty()) {
            ensureFreshCapability(operation);
            followingTheChain(operation, (used, heads) -> fsyncChains(operation, used, heads, positions));
            synchronized (this) {
                stripePositionsWrittenSinceFsync.andNot(positions);
            }
        }
        flushSize(operation, false);
    }

    /** Reports the size written (if any) to the MRC and releases the handle. Closing twice is harmless. */
    @Override
    public void close() throws XtreemFSException {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        flushSize("close " + volume.describe(path), true);
    }

    void closeQuietly() {
        try {
            close();
        } catch (XtreemFSException ignored) {
            // The caller is already reporting a failure of this handle.
        }
    }

    private void flushSize(String operation, boolean closeFile) throws XtreemFSException {
        long size;
        XCap xcap;
        synchronized (this) {
            if (!sizeReportPending) {
                return;
            }
            size = sizeBytes();
            xcap = credentials.getXcap();
        }
        // Also on close: a handle that sat idle past its XCap's expiry still reports its size.
        ensureFreshCapability(operation);
        xcap = credentials().getXcap();
        reportSize(operation, xcap, size, closeFile);
        synchronized (this) {
            knownSizeBytes = Math.max(knownSizeBytes, size);
            if (sizeBytes() == size) {
                sizeReportPending = false;
            }
        }
        volume.invalidate(path);
    }

    private void reportSize(String operation, XCap xcap, long sizeBytes, boolean closeFile) throws XtreemFSException {
        volume.mrcCall(operation + " (size update to " + sizeBytes + " bytes)", true,
                (mrc, address) -> mrc.updateFileSize(address, client.credentials(), UpdateFileSizeRequest.newBuilder()
                        .setXcap(xcap).setNewFileSize(NewFileSize.newBuilder().setSizeBytes(sizeBytes)
                                .setTruncateEpoch(xcap.getTruncateEpoch()))
                        .setCloseFile(closeFile).build()));
    }

    private OsdWriteResponse noteOsdFileSize(OsdWriteResponse response) {
        if (response.hasNewFileSize()) {
            synchronized (this) {
                NewFileSize reported = response.getNewFileSize();
                if (reported.getTruncateEpoch() == credentials.getXcap().getTruncateEpoch()) {
                    writtenEndBytes = Math.max(writtenEndBytes, reported.getSizeBytes());
                }
            }
        }
        return response;
    }

    /**
     * Renews the XCap when it expires within the configured margin (or within half its lifetime, for short-lived
     * caps). When the MRC refuses the renewal (e.g. the cap already expired), the file is opened again by path.
     */
    private void ensureFreshCapability(String operation) throws XtreemFSException {
        XCap xcap;
        long receivedMs;
        synchronized (this) {
            xcap = credentials.getXcap();
            receivedMs = capabilityReceivedMs;
        }
        long nowMs = System.currentTimeMillis();
        long lifetimeMs = Math.max(0, xcap.getExpiresMs() - receivedMs);
        long marginMs = Math.min(client.options().capabilityRenewMarginMs(), lifetimeMs / 2);
        if (xcap.getExpiresMs() - nowMs > marginMs) {
            return;
        }
        XCap renewed;
        try {
            renewed = volume.mrcCall(operation + " (renew capability)", true, (mrc, address) -> mrc.renewCapability(
                    address, client.credentials(), XCapRequest.newBuilder().setXcap(xcap).build())).getXcap();
        } catch (XtreemFSException refused) {
            if (refused.errorType() != org.xtreemfs.interfaces.rpc.ErrorType.AUTH_FAILED) {
                throw refused;
            }
            int reopenFlags = flags & ~(OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_TRUNC);
            renewed = volume.mrcCall(operation + " (reopen after the capability expired)", true,
                    (mrc, address) -> mrc.open(address, client.credentials(), OpenRequest.newBuilder()
                            .setVolumeName(volume.name()).setPath(path).setFlags(reopenFlags).build()))
                    .getCredentials().getXcap();
            if (!renewed.getFileId().equals(fileId)) {
                throw new XtreemFSException(Errno.EIO, operation + ": " + volume.describe(path)
                        + " now names another file (" + renewed.getFileId() + ", was " + fileId + ")");
            }
        }
        synchronized (this) {
            credentials = credentials.toBuilder().setXcap(renewed).build();
            capabilityReceivedMs = System.currentTimeMillis();
        }
    }

    /** OSD_FSYNC at the heads of the given stripe positions; each travels its chain, so every member fsyncs. */
    private void fsyncChains(String operation, FileCredentials used, List<String> heads, BitSet positions)
            throws XtreemFSException {
        List<CompletableFuture<?>> syncs = new ArrayList<>();
        for (int position = positions.nextSetBit(0); position >= 0; position = positions.nextSetBit(position + 1)) {
            String osdUuid = heads.get(position);
            syncs.add(callOsd(osdUuid, address -> client.osd().fsync(address, client.credentials(),
                    FileRequest.newBuilder().setCredentials(used).setFileId(fileId).build())));
        }
        awaitAll(operation, syncs);
    }

    /** One attempt of an operation on the OSDs, with the credentials (XCap and XLoc) and chains it must use. */
    @FunctionalInterface
    private interface ChainAttempt {
        void run(FileCredentials used, List<String> headOsds) throws XtreemFSException;
    }

    /**
     * Runs {@code attempt} and, for a replicated file, follows its chain through failures (servers/osd README,
     * "Chain replication"): an OSD that gives no answer, or that a chain member names as unreachable
     * (CHAIN_MEMBER_UNREACHABLE), is reported to the MRC (MRC_REPLICA_FAILED with the XLoc version used), and an
     * XLOC_OUTDATED refusal (of any file: an OSD saw a newer XLoc version, servers/osd "XLoc versions at the OSD")
     * asks the MRC for the current XLoc. A newer XLoc from the MRC is adopted and the whole
     * attempt runs again with it (every piece: updates are idempotent by offset, size and epoch); while the MRC keeps
     * the XLoc (the DIR still shows the member alive) the attempt is repeated after a backoff. Bounded by the
     * client's retry window from the first attempt; then the last failure is thrown. After adopting a re-formed chain
     * the file is fsynced through it first, so a new tail holds durably what it had applied buffered as a middle.
     */
    private void followingTheChain(String operation, ChainAttempt attempt) throws XtreemFSException {
        long startNanos = System.nanoTime();
        long backoffMs = client.options().retryBackoffInitialMs();
        while (true) {
            FileCredentials used;
            List<String> heads;
            boolean fsyncFirst;
            synchronized (this) {
                used = credentials;
                heads = stripeOsdUuids;
                fsyncFirst = fsyncAfterReformation;
            }
            try {
                if (fsyncFirst) {
                    BitSet all = new BitSet();
                    all.set(0, heads.size());
                    fsyncChains(operation + " (fsync of the re-formed chain)", used, heads, all);
                    synchronized (this) {
                        if (credentials.getXlocs().getVersion() == used.getXlocs().getVersion()) {
                            fsyncAfterReformation = false;
                        }
                    }
                }
                attempt.run(used, heads);
                return;
            } catch (XtreemFSException failure) {
                ErrorType type = failure.errorType();
                long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000L;
                // XLOC_OUTDATED is followed for every file: a replica may have been added to a file that had one.
                boolean follows = type == ErrorType.XLOC_OUTDATED
                        || (replicated && type == ErrorType.CHAIN_MEMBER_UNREACHABLE);
                if (!follows || elapsedMs >= client.options().retryWindowMs()) {
                    throw failure;
                }
                String failedOsd = type == ErrorType.CHAIN_MEMBER_UNREACHABLE
                        && failure.getCause() instanceof RpcException rpc ? rpc.redirectToServiceUuid() : "";
                int usedVersion = used.getXlocs().getVersion();
                XLocSet current = volume.mrcCall(operation + (failedOsd.isEmpty() ? " (current XLoc)"
                        : " (report OSD " + failedOsd + " of XLoc version " + usedVersion + " as failed)"), true,
                        (mrc, address) -> mrc.replicaFailed(address, client.credentials(), ReplicaFailedRequest
                                .newBuilder().setXcap(used.getXcap()).setXlocVersion(usedVersion)
                                .setFailedOsdUuid(failedOsd).build()));
                if (!adopt(current)) {
                    sleep(operation, Math.min(backoffMs, Math.max(0, client.options().retryWindowMs() - elapsedMs)));
                    backoffMs = Math.min(Math.max(1, backoffMs * 2), client.options().retryBackoffMaxMs());
                }
            }
        }
    }

    /** Takes {@code xlocs} if it is newer than the handle's; true when it did. */
    private synchronized boolean adopt(XLocSet xlocs) {
        if (xlocs.getVersion() <= credentials.getXlocs().getVersion()) {
            return false;
        }
        ReplicaChain chain;
        try {
            chain = ReplicaChain.of(xlocs);
        } catch (IllegalArgumentException malformed) {
            return false;
        }
        credentials = credentials.toBuilder().setXlocs(xlocs).build();
        stripeOsdUuids = chain.headOsds();
        this.chain = chain;
        replicated = chain.length() > 1;
        readRoute = null; // routed again over the re-formed chain's members
        // Only a writer can (OSD_FSYNC needs write access); a reader has nothing of its own to make durable.
        fsyncAfterReformation = OpenFlags.canWrite(flags);
        return true;
    }

    private static void sleep(String operation, long delayMs) throws XtreemFSException {
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new XtreemFSException(Errno.EIO, operation + ": interrupted");
        }
    }

    /**
     * Calls one OSD of the file with the client's retry policy. For a replicated file a call without an answer is
     * not repeated here but failed as CHAIN_MEMBER_UNREACHABLE naming that OSD, for {@link #followingTheChain}.
     */
    private <T> CompletableFuture<T> callOsd(String osdUuid,
            java.util.function.Function<java.net.InetSocketAddress, CompletableFuture<T>> call) {
        if (!replicated) {
            return client.callServiceAsync(osdUuid, true, call);
        }
        return client.callServiceAsync(osdUuid, false, call).handle((value, error) -> {
            if (error == null) {
                return value;
            }
            Throwable cause = error;
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof RpcTransportException) {
                throw new CompletionException(RpcException.chainMemberUnreachable(osdUuid, "OSD " + osdUuid
                        + " of the chain gave no answer: " + cause.getMessage()));
            }
            throw error instanceof CompletionException completion ? completion : new CompletionException(error);
        });
    }

    /** Issues one piece once a permit of the client's in-flight bound is free; the permit returns on completion. */
    private CompletableFuture<?> limited(String operation, java.util.function.Supplier<CompletableFuture<?>> piece)
            throws XtreemFSException {
        Semaphore permits = client.objectRequestPermits();
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new XtreemFSException(Errno.EIO, operation + ": interrupted");
        }
        CompletableFuture<?> future;
        try {
            future = piece.get();
        } catch (RuntimeException e) {
            permits.release();
            throw e;
        }
        return future.whenComplete((ignored, error) -> permits.release());
    }

    /** Waits for every piece (so no buffer is still in use), then throws the first failure. */
    private static void awaitAll(String operation, List<CompletableFuture<?>> pieces) throws XtreemFSException {
        XtreemFSException first = null;
        for (CompletableFuture<?> piece : pieces) {
            try {
                Client.await(operation, piece);
            } catch (XtreemFSException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private synchronized void checkOpen(String operation) throws XtreemFSException {
        if (closed) {
            throw new XtreemFSException(Errno.EBADF, operation + ": the file handle is closed");
        }
    }

    private static void checkRange(String operation, long offset, byte[] buffer, int bufferOffset, int length)
            throws XtreemFSException {
        if (offset < 0 || length < 0 || bufferOffset < 0 || bufferOffset > buffer.length - length) {
            throw new XtreemFSException(Errno.EINVAL, operation + ": invalid offset or buffer range (buffer of "
                    + buffer.length + " bytes, buffer offset " + bufferOffset + ")");
        }
    }
}
