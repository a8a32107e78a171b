package org.xtreemfs.osd.replication;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CRAQ's clean and dirty versions at a chain member that has a successor (head or middle), per file: an update
 * this OSD applied is <em>dirty</em> until its successor acknowledged it (which it does only after the tail
 * applied it, so acknowledged means committed), and a read is served from this OSD's own copy only when the file
 * has no dirty update. A read that finds the file dirty goes down the chain instead (the storage stage forwards it
 * to the successor, which applies the same rule; the tail always serves).
 *
 * <p>The check is optimistic, like a sequence lock, because a read runs concurrently with updates of other objects
 * of the same file (which may change the file's size the read consults): {@link #readStart} gives a stamp when the
 * file is clean, and {@link #readValid} after the read says whether the file is still clean and no update of it
 * began since the stamp. Stamps come from one counter per OSD, so a file's state can be forgotten (the map is
 * bounded) without a reused stamp ever validating a read: a forgotten file counts as updated at the largest stamp
 * forgotten.
 *
 * <p>An update whose forward failed stays dirty at this OSD ("divergent": it may hold data the tail never got,
 * until the client's retry or the chain's re-forming repairs it) until this OSD restarts; such a file's reads all
 * go down the chain. Thread-safe (one monitor; every call is a few map operations).
 */
public final class CleanVersions {
    /** Files remembered while clean; dirty and divergent files are never forgotten. */
    public static final int CLEAN_FILES_REMEMBERED_MAX = 65_536;

    private static final class FileState {
        long pendingUpdates;
        long lastUpdateStamp;
        boolean divergent;

        boolean clean() {
            return pendingUpdates == 0 && !divergent;
        }
    }

    private final int cleanFilesRememberedMax;
    private final LinkedHashMap<String, FileState> files = new LinkedHashMap<>(64, 0.75f, true);
    private long stamp;
    private long forgottenStampMax;

    public CleanVersions() {
        this(CLEAN_FILES_REMEMBERED_MAX);
    }

    CleanVersions(int cleanFilesRememberedMax) {
        if (cleanFilesRememberedMax < 1) {
            throw new IllegalArgumentException("cleanFilesRememberedMax must be >= 1, was " + cleanFilesRememberedMax);
        }
        this.cleanFilesRememberedMax = cleanFilesRememberedMax;
    }

    /**
     * Call before this OSD applies an update of {@code fileId} that it will forward (on the file's storage lane,
     * before the update touches anything a read could see). Every call is matched by exactly one
     * {@link #acknowledged}, {@link #withdrawn} or
     * {@link #unacknowledged}.
     */
    public synchronized void applying(String fileId) {
        FileState file = files.computeIfAbsent(fileId, id -> new FileState());
        file.pendingUpdates++;
        file.lastUpdateStamp = ++stamp;
        forgetCleanBeyondBound();
    }

    /** The successor acknowledged one update of {@code fileId}: the rest of the chain, tail included, has it. */
    public synchronized void acknowledged(String fileId) {
        finished(fileId, false);
    }

    /** One update of {@code fileId} was refused here before it changed anything (it is not forwarded). */
    public synchronized void withdrawn(String fileId) {
        finished(fileId, false);
    }

    /** The forward of one update of {@code fileId} failed: this OSD may hold what the tail does not. */
    public synchronized void unacknowledged(String fileId) {
        finished(fileId, true);
    }

    /** A stamp to pass to {@link #readValid} when {@code fileId} is clean here; -1 when it is dirty. */
    public synchronized long readStart(String fileId) {
        FileState file = files.get(fileId);
        return file == null || file.clean() ? stamp : -1;
    }

    /** Whether a read of {@code fileId} that began at {@code readStamp} saw only acknowledged updates. */
    public synchronized boolean readValid(String fileId, long readStamp) {
        if (readStamp < 0) {
            return false;
        }
        FileState file = files.get(fileId);
        if (file == null) {
            return forgottenStampMax <= readStamp;
        }
        return file.clean() && file.lastUpdateStamp <= readStamp;
    }

    /** Files with an unacknowledged or failed update here (the status page's {@code replicationDirtyFiles}). */
    public synchronized int dirtyFiles() {
        int dirty = 0;
        for (FileState file : files.values()) {
            dirty += file.clean() ? 0 : 1;
        }
        return dirty;
    }

    private void finished(String fileId, boolean failed) {
        FileState file = files.get(fileId);
        if (file == null || file.pendingUpdates == 0) {
            throw new IllegalStateException("file " + fileId + " has no update waiting for its successor");
        }
        file.pendingUpdates--;
        file.divergent |= failed;
    }

    private void forgetCleanBeyondBound() {
        Iterator<Map.Entry<String, FileState>> eldest = files.entrySet().iterator();
        while (files.size() > cleanFilesRememberedMax && eldest.hasNext()) {
            FileState file = eldest.next().getValue();
            if (file.clean()) {
                forgottenStampMax = Math.max(forgottenStampMax, file.lastUpdateStamp);
                eldest.remove();
            }
        }
    }
}
