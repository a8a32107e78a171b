package org.xtreemfs.qos.device;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.qos.device.WriteBackState.DirtyQueue;
import org.xtreemfs.qos.device.WriteBackState.DirtyWrite;
import org.xtreemfs.qos.device.WriteBackState.Writeback;

/**
 * The host's page cache in front of a device model: unsynced writes are acknowledged from memory and written back
 * to the media later, as the OSD's object store writes (it forces an object file only for a synced write or an
 * fsync). Pure: time is a parameter, the state is a value.
 *
 * <p><b>Writes.</b> An unsynced write is acknowledged after copying it at {@code copyBytesPerSecond}, as long as the
 * dirty bytes (not yet written back, or under writeback) stay within {@code dirtyLimitBytes}; otherwise it waits
 * until enough write-back has completed (the kernel's balance_dirty_pages throttling), so a writer's sustained
 * throughput is what the media delivers. A synced write first writes back any dirty data it overlaps, then goes
 * to the media write-through, as before this cache existed; {@link #flush} (an fsync) writes back a range and
 * completes when the last of it is on the media.
 *
 * <p><b>Write-back.</b> The flusher starts when the dirty bytes reach {@code backgroundBytes} (and then keeps going
 * batch after batch while they stay there) or when the oldest dirty write is {@code expireNanos} old. A batch is
 * the oldest {@code flushBatchWrites} dirty writes (the flusher walks inodes oldest first; every OSD object is a
 * file of its own, one request each), sorted by offset and merged where adjacent, and served in one ascending
 * sweep from where the previous flush ended (the elevator). So s interleaved sequential writers pay about s
 * positionings per batch instead of one per request, while random writes still scatter the head. Requests of a
 * batch go to the media one at a time only when it is free; a read arriving meanwhile waits for at most the
 * flush in progress, not the whole batch (the deadline scheduler prefers reads).
 *
 * <p><b>Reads.</b> A read wholly covered by dirty data (or data under writeback) is served from memory; any other
 * read goes to the media. Clean cached data is not modelled: the models describe the device, and an OSD's
 * calibration measures it with data far larger than the dirty limit.
 *
 * <p>Simplification: a rewrite of still dirty data counts again towards the limit (the kernel would just redirty
 * the page); the OSD's streams and the calibration do not rewrite data within seconds.
 *
 * <p>Why a wrapper and not a part of {@link HddModel}: write-back is the host's, not the drive's, so it wraps any
 * {@link DeviceModel}. The built-in SSD stays without it ({@link SsdModel}'s write latency already stands for
 * its absorbed write cache, and sorting buys a flash drive nothing), but an SSD wrapped in it behaves sensibly:
 * flushes use the free channels in parallel.
 */
public record WriteBackCache<S extends DeviceState>(
        DeviceModel<S> media,
        long dirtyLimitBytes,
        long backgroundBytes,
        int flushBatchWrites,
        long expireNanos,
        long copyBytesPerSecond,
        double timeScale)
        implements DeviceModel<WriteBackState<S>> {

    private static final long MIB = 1L << 20;

    public WriteBackCache {
        if (media == null) {
            throw new IllegalArgumentException("media must be given");
        }
        if (dirtyLimitBytes <= 0 || backgroundBytes <= 0 || backgroundBytes > dirtyLimitBytes) {
            throw new IllegalArgumentException("need 0 < backgroundBytes <= dirtyLimitBytes, were " + backgroundBytes
                    + " and " + dirtyLimitBytes);
        }
        if (flushBatchWrites <= 0) {
            throw new IllegalArgumentException("flushBatchWrites must be > 0, was " + flushBatchWrites);
        }
        if (expireNanos <= 0 || copyBytesPerSecond <= 0) {
            throw new IllegalArgumentException("expireNanos and copyBytesPerSecond must be > 0, were " + expireNanos
                    + " and " + copyBytesPerSecond);
        }
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("timeScale must be > 0, was " + timeScale);
        }
    }

    /**
     * {@code media} behind a Linux host's write-back with the figures an OSD host would have:
     * <ul>
     *   <li>64 MiB dirty limit, 32 MiB background threshold: the kernel's 2:1 ratio of dirty_ratio (20 %) to
     *       dirty_background_ratio (10 %), sized as storage servers set vm.dirty_bytes instead of a fifth of
     *       their memory: about half a second of the drive's media rate, so that an fsync or a synced write
     *       waits for at most that, and a calibration window of seconds measures the media, not memory;
     *   <li>batches of 64 writes: blk-mq's default request queue of twice the drive's NCQ depth (2 x 32), the
     *       most the elevator can sort at once; 64 OSD objects of 128 KiB are 8 MiB;
     *   <li>30 s expiry: dirty_expire_centisecs = 3000;
     *   <li>copies at 2 GB/s: one thread copying into the page cache, system call included.
     * </ul>
     */
    public static <S extends DeviceState> WriteBackCache<S> linuxHost(DeviceModel<S> media) {
        return new WriteBackCache<>(media, 64 * MIB, 32 * MIB, 64, 30_000_000_000L, 2_000_000_000L, 1.0);
    }

    /** The built-in HDD as an OSD writes to it: {@link HddModel#desktop7200Rpm()} behind {@link #linuxHost}. */
    public static WriteBackCache<HddState> osdHdd7200() {
        return linuxHost(HddModel.desktop7200Rpm());
    }

    @Override
    public long capacityBytes() {
        return media.capacityBytes();
    }

    @Override
    public WriteBackCache<S> slowedBy(double factor) {
        return new WriteBackCache<>(media.slowedBy(factor), dirtyLimitBytes, backgroundBytes, flushBatchWrites,
                expireNanos, copyBytesPerSecond, timeScale * factor);
    }

    @Override
    public WriteBackState<S> initialState() {
        return new WriteBackState<>(media.initialState(), 0, DirtyQueue.EMPTY, List.of(), 0, List.of(),
                Long.MAX_VALUE);
    }

    @Override
    public ServiceResult<WriteBackState<S>> serve(IoRequest request, WriteBackState<S> state, long startNanos) {
        DeviceModel.requireWithinCapacity(request, capacityBytes());
        long nowNanos = Math.max(startNanos, state.nextStartNanos());
        Flusher flusher = new Flusher(state);
        flusher.background(nowNanos);
        if (request.kind() == IoKind.READ && flusher.cached(request.offsetBytes(), request.endBytes(), nowNanos)) {
            long completionNanos = nowNanos + copyNanos(request.lengthBytes());
            return new ServiceResult<>(completionNanos, flusher.state(completionNanos, nowNanos));
        }
        if (request.kind() == IoKind.WRITE && !request.synced()) {
            long roomNanos = flusher.makeRoom(request.lengthBytes(), nowNanos);
            long completionNanos = roomNanos + copyNanos(request.lengthBytes());
            flusher.append(new DirtyWrite(request.offsetBytes(), request.lengthBytes(), completionNanos));
            return new ServiceResult<>(completionNanos, flusher.state(completionNanos, nowNanos));
        }
        long mediaStartNanos = request.kind() == IoKind.WRITE
                ? flusher.flushRange(request.offsetBytes(), request.endBytes(), nowNanos) : nowNanos;
        ServiceResult<S> served = media.serve(request, flusher.mediaState,
                Math.max(mediaStartNanos, flusher.mediaState.nextStartNanos()));
        flusher.mediaState = served.nextState();
        return new ServiceResult<>(served.completionNanos(),
                flusher.state(mediaNextStartNanos(served.completionNanos(), flusher.mediaState, nowNanos), nowNanos));
    }

    @Override
    public ServiceResult<WriteBackState<S>> flush(long fromBytes, long toBytes, WriteBackState<S> state,
            long startNanos) {
        long nowNanos = Math.max(startNanos, state.nextStartNanos());
        Flusher flusher = new Flusher(state);
        flusher.background(nowNanos);
        long durableNanos = flusher.flushRange(fromBytes, toBytes, nowNanos);
        return new ServiceResult<>(durableNanos,
                flusher.state(mediaNextStartNanos(durableNanos, flusher.mediaState, nowNanos), nowNanos));
    }

    /**
     * The dirty bytes at {@code nowNanos} after the flusher issued what it starts before then (as the next request
     * would see them), against the background threshold. Pure: works on a copy of the state.
     */
    @Override
    public Optional<WriteBackLevel> writeBackLevel(WriteBackState<S> state, long nowNanos) {
        Flusher flusher = new Flusher(state);
        flusher.background(nowNanos);
        return Optional.of(new WriteBackLevel(flusher.dirtyBytesAt(nowNanos), backgroundBytes));
    }

    /** After the media served: the next request may start once the media can take one (an SSD's free channel). */
    private static long mediaNextStartNanos(long completionNanos, DeviceState media, long nowNanos) {
        return Math.max(nowNanos, Math.min(completionNanos, media.nextStartNanos()));
    }

    private long copyNanos(long lengthBytes) {
        return Math.round(lengthBytes * 1e9 / copyBytesPerSecond * timeScale);
    }

    /** A working copy of the state for one call; {@link #state} turns it back into a value. */
    private final class Flusher {
        S mediaState;
        DirtyQueue dirty;
        final List<IoRequest> batch;
        long batchStartNanos;
        final List<Writeback> writeback;
        long backgroundSinceNanos;

        Flusher(WriteBackState<S> state) {
            mediaState = state.media();
            dirty = state.dirty();
            batch = new ArrayList<>(state.batch());
            batchStartNanos = state.batchStartNanos();
            writeback = new ArrayList<>(state.writeback());
            backgroundSinceNanos = state.backgroundSinceNanos();
        }

        WriteBackState<S> state(long nextStartNanos, long nowNanos) {
            // Later queries never look before min(now, the media's next start): drop what completed by then.
            long completedBeforeNanos = Math.min(nowNanos, mediaState.nextStartNanos());
            writeback.removeIf(flush -> flush.completionNanos() <= completedBeforeNanos);
            return new WriteBackState<>(mediaState, nextStartNanos, dirty, batch, batchStartNanos, writeback,
                    backgroundSinceNanos);
        }

        /** Dirty bytes at {@code timeNanos}: queued, batched, and under writeback not completed by then. */
        long dirtyBytesAt(long timeNanos) {
            long bytes = dirty.bytes();
            for (IoRequest request : batch) {
                bytes += request.lengthBytes();
            }
            for (Writeback flush : writeback) {
                if (flush.completionNanos() > timeNanos) {
                    bytes += flush.request().lengthBytes();
                }
            }
            return bytes;
        }

        /** Issues every flush that the background flusher starts before {@code nowNanos}. */
        void background(long nowNanos) {
            while (true) {
                if (batch.isEmpty()) {
                    if (dirty.isEmpty()) {
                        return;
                    }
                    long freeNanos = mediaState.nextStartNanos();
                    long dueNanos;
                    long backgroundCheckNanos = Math.max(freeNanos, backgroundSinceNanos);
                    if (backgroundSinceNanos != Long.MAX_VALUE
                            && dirtyBytesAt(backgroundCheckNanos) >= backgroundBytes) {
                        dueNanos = backgroundCheckNanos;
                    } else {
                        backgroundSinceNanos = Long.MAX_VALUE;
                        dueNanos = Math.max(freeNanos, dirty.oldest().dirtiedNanos() + scaledExpireNanos());
                    }
                    if (dueNanos >= nowNanos) {
                        return;
                    }
                    formBatch(dueNanos);
                }
                long startNanos = Math.max(batchStartNanos, mediaState.nextStartNanos());
                if (startNanos >= nowNanos) {
                    return;
                }
                issueFromBatch(startNanos);
            }
        }

        /** The earliest time from {@code nowNanos} at which {@code lengthBytes} more fit the dirty limit. */
        long makeRoom(long lengthBytes, long nowNanos) {
            while (true) {
                long roomNanos = earliestRoomNanos(lengthBytes, nowNanos);
                if (roomNanos >= 0) {
                    return roomNanos;
                }
                if (batch.isEmpty()) {
                    formBatch(Math.max(nowNanos, mediaState.nextStartNanos()));
                }
                issueFromBatch(Math.max(nowNanos, Math.max(batchStartNanos, mediaState.nextStartNanos())));
            }
        }

        /** When the writebacks issued so far make room, or -1 if more must be issued first. */
        private long earliestRoomNanos(long lengthBytes, long nowNanos) {
            long waitingBytes = dirty.bytes();
            for (IoRequest request : batch) {
                waitingBytes += request.lengthBytes();
            }
            if (waitingBytes > 0 && waitingBytes + lengthBytes > dirtyLimitBytes) {
                return -1;
            }
            List<Writeback> pending = new ArrayList<>();
            long pendingBytes = 0;
            for (Writeback flush : writeback) {
                if (flush.completionNanos() > nowNanos) {
                    pending.add(flush);
                    pendingBytes += flush.request().lengthBytes();
                }
            }
            // A write larger than the limit goes in once nothing else is dirty.
            if (fits(waitingBytes + pendingBytes, lengthBytes)) {
                return nowNanos;
            }
            pending.sort(Comparator.comparingLong(Writeback::completionNanos));
            for (Writeback flush : pending) {
                pendingBytes -= flush.request().lengthBytes();
                if (fits(waitingBytes + pendingBytes, lengthBytes)) {
                    return flush.completionNanos();
                }
            }
            throw new IllegalStateException("no room after every writeback completed"); // unreachable: fits(0, n)
        }

        private boolean fits(long dirtyBytes, long lengthBytes) {
            return dirtyBytes == 0 || dirtyBytes + lengthBytes <= dirtyLimitBytes;
        }

        void append(DirtyWrite write) {
            dirty = dirty.append(write);
            if (backgroundSinceNanos == Long.MAX_VALUE && dirtyBytesAt(write.dirtiedNanos()) >= backgroundBytes) {
                backgroundSinceNanos = write.dirtiedNanos();
            }
        }

        /** True if memory holds all of {@code [fromBytes, toBytes)} at {@code nowNanos}: dirty or under writeback. */
        boolean cached(long fromBytes, long toBytes, long nowNanos) {
            List<long[]> ranges = new ArrayList<>();
            dirty.forEach(write -> {
                if (write.overlaps(fromBytes, toBytes)) {
                    ranges.add(new long[] {write.offsetBytes(), write.endBytes()});
                }
            });
            for (IoRequest request : batch) {
                addIfOverlapping(ranges, request, fromBytes, toBytes);
            }
            for (Writeback flush : writeback) {
                if (flush.completionNanos() > nowNanos) {
                    addIfOverlapping(ranges, flush.request(), fromBytes, toBytes);
                }
            }
            ranges.sort(Comparator.comparingLong(range -> range[0]));
            long coveredToBytes = fromBytes;
            for (long[] range : ranges) {
                if (range[0] > coveredToBytes) {
                    return false;
                }
                coveredToBytes = Math.max(coveredToBytes, range[1]);
            }
            return coveredToBytes >= toBytes;
        }

        private static void addIfOverlapping(List<long[]> ranges, IoRequest request, long fromBytes, long toBytes) {
            if (request.offsetBytes() < toBytes && fromBytes < request.endBytes()) {
                ranges.add(new long[] {request.offsetBytes(), request.endBytes()});
            }
        }

        /**
         * Writes back everything dirty in {@code [fromBytes, toBytes)} now, ahead of the background order;
         * returns when the last of it (and any writeback of the range already in progress) is on the media.
         */
        long flushRange(long fromBytes, long toBytes, long nowNanos) {
            long durableNanos = nowNanos;
            for (Writeback flush : writeback) {
                if (flush.request().offsetBytes() < toBytes && fromBytes < flush.request().endBytes()) {
                    durableNanos = Math.max(durableNanos, flush.completionNanos());
                }
            }
            List<DirtyWrite> taken = new ArrayList<>();
            dirty = dirty.without(write -> write.overlaps(fromBytes, toBytes), taken);
            for (IoRequest request : List.copyOf(batch)) {
                if (request.offsetBytes() < toBytes && fromBytes < request.endBytes()) {
                    batch.remove(request);
                    taken.add(new DirtyWrite(request.offsetBytes(), request.lengthBytes(), nowNanos));
                }
            }
            for (IoRequest request : elevatorOrder(taken, 0)) {
                durableNanos = Math.max(durableNanos,
                        issue(request, Math.max(nowNanos, mediaState.nextStartNanos())));
            }
            return durableNanos;
        }

        /** Hands the oldest dirty writes to the elevator at {@code startNanos}. */
        private void formBatch(long startNanos) {
            List<DirtyWrite> oldest = new ArrayList<>();
            while (!dirty.isEmpty() && oldest.size() < flushBatchWrites) {
                oldest.add(dirty.oldest());
                dirty = dirty.withoutOldest();
            }
            long sweepFromBytes = writeback.isEmpty() ? 0 : writeback.get(writeback.size() - 1).request().endBytes();
            batch.addAll(elevatorOrder(oldest, sweepFromBytes));
            batchStartNanos = startNanos;
        }

        private long issueFromBatch(long startNanos) {
            return issue(batch.remove(0), startNanos);
        }

        private long issue(IoRequest request, long startNanos) {
            ServiceResult<S> served = media.serve(request, mediaState, startNanos);
            mediaState = served.nextState();
            writeback.add(new Writeback(request, served.completionNanos()));
            return served.completionNanos();
        }
    }

    /**
     * The elevator: {@code writes} sorted by offset, adjacent or overlapping ones merged into one media write, in
     * one ascending sweep that starts at the first write at or after {@code sweepFromBytes} and wraps around.
     */
    static List<IoRequest> elevatorOrder(List<DirtyWrite> writes, long sweepFromBytes) {
        List<DirtyWrite> sorted = new ArrayList<>(writes);
        sorted.sort(Comparator.comparingLong(DirtyWrite::offsetBytes));
        List<IoRequest> merged = new ArrayList<>();
        long startBytes = -1;
        long endBytes = -1;
        for (DirtyWrite write : sorted) {
            if (startBytes >= 0 && write.offsetBytes() <= endBytes) {
                endBytes = Math.max(endBytes, write.endBytes());
                continue;
            }
            if (startBytes >= 0) {
                merged.add(IoRequest.write(startBytes, endBytes - startBytes));
            }
            startBytes = write.offsetBytes();
            endBytes = write.endBytes();
        }
        if (startBytes >= 0) {
            merged.add(IoRequest.write(startBytes, endBytes - startBytes));
        }
        int first = 0;
        while (first < merged.size() && merged.get(first).offsetBytes() < sweepFromBytes) {
            first++;
        }
        List<IoRequest> sweep = new ArrayList<>(merged.subList(first, merged.size()));
        sweep.addAll(merged.subList(0, first));
        return sweep;
    }

    private long scaledExpireNanos() {
        return Math.round(expireNanos * timeScale);
    }
}
