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
 * reaped and not scanned again; after a restart one round finds nothing and remembers it again. Each round
 * while a volume is not reaped lists every file folder once (the OSD's files, not its objects). One caller at a
 * time (the heartbeat thread); thread-safe anyway.
 */
public final class VolumeReaper {
    private final ObjectStorage store;
    private final DeletionQueue deletions;
    private final int filesPerRoundMax;
    private final Set<String> reaped = new HashSet<>();
    private long filesQueued;

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
     */
    public synchronized int reap(Collection<String> deletedVolumeIds) throws IOException {
        Set<String> volumes = new HashSet<>(deletedVolumeIds);
        volumes.removeAll(reaped);
        if (volumes.isEmpty()) {
            return 0;
        }
        Set<String> stillHolding = new HashSet<>();
        Set<String> fileIds = new HashSet<>();
        collectFolders(volumes, fileIds);
        collectMetadata(volumes, fileIds);
        int queued = 0;
        for (String fileId : fileIds) {
            stillHolding.add(volumeOf(fileId));
            if (deletions.isPending(fileId)) {
                continue;
            }
            if (queued >= filesPerRoundMax || !deletions.enqueue(fileId)) {
                break;
            }
            queued++;
        }
        filesQueued += queued;
        for (String volume : volumes) {
            if (!stillHolding.contains(volume)) {
                reaped.add(volume);
            }
        }
        return queued;
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

    private void collectFolders(Set<String> volumes, Set<String> fileIds) throws IOException {
        store.forEachStoredFile(fileId -> {
            if (volumes.contains(volumeOf(fileId))) {
                fileIds.add(fileId);
            }
        });
    }

    private void collectMetadata(Set<String> volumes, Set<String> fileIds) {
        for (String volume : volumes) {
            byte[] prefix = (volume + ":").getBytes(StandardCharsets.UTF_8);
            try (KvIterator records = store.metadataStore().iterator(KeyRange.prefix(prefix))) {
                while (records.hasNext()) {
                    fileIds.add(new String(records.next().key(), StandardCharsets.UTF_8));
                }
            }
        }
    }
}
