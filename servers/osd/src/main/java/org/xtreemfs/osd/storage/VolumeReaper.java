package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvIterator;

/**
 * Removes the objects of deleted volumes in the background. The DIR names the ids of deleted volumes in
 * every heartbeat answer; {@link #reap} finds this OSD's files of those volumes (object folders and metadata
 * records, file ids being "volumeId:inode") and hands at most {@code filesPerRoundMax} of them per call to
 * the {@link DeletionQueue}, which deletes them through the storage stage like unlinked files (durably
 * queued, ordered with any other work on the file). So a deleted volume costs at most that many deletions
 * per heartbeat period, never a burst that starves live volumes.
 *
 * <p>A volume of which a round found nothing (no folder, no metadata, nothing pending) is remembered as
 * reaped and not scanned again (only a round that walked everything can tell); after a restart one round finds
 * nothing and remembers it again. Each round while a volume is not reaped walks the file folders (the OSD's
 * files, not its objects) until its batch is full, holding none of them in memory. One caller at a time (the
 * heartbeat thread); thread-safe anyway.
 */
public final class VolumeReaper {
    private final ObjectStorage store;
    private final DeletionQueue deletions;
    private final int filesPerRoundMax;
    private final Set<String> reaped = new HashSet<>();
    private long filesQueued;
    private int lastRoundFilesVisited;

    public VolumeReaper(ObjectStorage store, DeletionQueue deletions, int filesPerRoundMax) {
        if (filesPerRoundMax < 1) {
            throw new IllegalArgumentException("files per round must be at least 1, got " + filesPerRoundMax);
        }
        this.store = store;
        this.deletions = deletions;
        this.filesPerRoundMax = filesPerRoundMax;
    }

    /**
     * One round: queues the deletion of up to {@code filesPerRoundMax} files of the given deleted volumes
     * that are not queued yet; returns how many it queued. Stops early when the deletion queue is full.
     * The round walks the file folders and metadata records one at a time and stops at its batch, so it
     * holds no list of the volume's files: its memory does not grow with a deleted volume's size. The next
     * round walks again from the start, passing over the files already queued (bounded by the deletion
     * queue) and those already deleted (gone), and so resumes where this one stopped.
     */
    public synchronized int reap(Collection<String> deletedVolumeIds) throws IOException {
        Set<String> volumes = new HashSet<>(deletedVolumeIds);
        volumes.removeAll(reaped);
        if (volumes.isEmpty()) {
            return 0;
        }
        Round round = new Round(volumes);
        if (walkFolders(round)) {
            walkMetadata(round);
        }
        filesQueued += round.queued;
        lastRoundFilesVisited = round.visited;
        if (!round.stoppedEarly) {
            for (String volume : volumes) {
                if (!round.stillHolding.contains(volume)) {
                    reaped.add(volume);
                }
            }
        }
        return round.queued;
    }

    /** One round's progress; its only collection is the set of volumes seen holding files (at most the ids asked). */
    private final class Round {
        final Set<String> volumes;
        final Set<String> stillHolding = new HashSet<>();
        int queued;
        int visited;
        boolean stoppedEarly;

        Round(Set<String> volumes) {
            this.volumes = volumes;
        }

        /** Looks at one file id; false ends the round (the batch is full or the deletion queue refused). */
        boolean visit(String fileId) throws IOException {
            String volume = volumeOf(fileId);
            if (!volumes.contains(volume)) {
                return true;
            }
            visited++;
            stillHolding.add(volume);
            if (deletions.isPending(fileId)) {
                return true;
            }
            if (!deletions.enqueue(fileId)) {
                stoppedEarly = true;
                return false;
            }
            queued++;
            if (queued >= filesPerRoundMax) {
                stoppedEarly = true;
                return false;
            }
            return true;
        }
    }

    /** File ids of deleted volumes the last round looked at: at most its batch plus the files already queued. */
    synchronized int lastRoundFilesVisited() {
        return lastRoundFilesVisited;
    }

    /** Files queued for deletion since start, over every deleted volume. */
    public synchronized long filesQueued() {
        return filesQueued;
    }

    /** Whether a round found nothing left of the volume on this OSD. */
    public synchronized boolean isReaped(String volumeId) {
        return reaped.contains(volumeId);
    }

    /** The volume id of a file id ("volumeId:inode"); the whole id when it has no ':'. */
    static String volumeOf(String fileId) {
        int colon = fileId.lastIndexOf(':');
        return colon < 0 ? fileId : fileId.substring(0, colon);
    }

    /** Visits every stored file; false when the round stopped. */
    private boolean walkFolders(Round round) throws IOException {
        return store.forEachStoredFile(round::visit);
    }

    /** Visits the metadata records of the round's volumes (files whose folder is gone or never existed). */
    private void walkMetadata(Round round) throws IOException {
        for (String volume : round.volumes) {
            byte[] prefix = (volume + ":").getBytes(StandardCharsets.UTF_8);
            try (KvIterator records = store.metadataStore().iterator(KeyRange.prefix(prefix))) {
                while (records.hasNext()) {
                    if (!round.visit(new String(records.next().key(), StandardCharsets.UTF_8))) {
                        return;
                    }
                }
            }
        }
    }
}
