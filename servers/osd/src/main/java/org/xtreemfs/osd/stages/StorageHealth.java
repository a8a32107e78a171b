package org.xtreemfs.osd.stages;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.xtreemfs.foundation.rpc.RpcException;

/**
 * Whether this OSD's storage can be trusted. A chain member whose disk returns errors keeps heartbeating, so the DIR
 * alone would never show it dead and the MRC would never remove it; this makes such a member visible (servers/osd
 * README, "Failure and re-formation").
 *
 * <p>Rules: every storage I/O failure of a request is counted; once {@code failuresMax} of them happened within
 * {@link #WINDOW_MS}, the storage is <b>failing</b> until this OSD restarts (a disk that failed again and again is not
 * trusted again without an operator). A failing OSD registers at the DIR as TO_BE_REMOVED, so placement skips it and
 * the MRC removes it from a chain once a client reports it. A failed request of a replicated file is answered
 * CHAIN_MEMBER_UNREACHABLE naming this OSD, which clients report to the MRC as they report a member that gives no
 * answer (a predecessor passes the answer back unchanged); one of an unreplicated file is INTERNAL, as before.
 * {@code failuresMax} 0: never failing.
 */
public final class StorageHealth {
    /** The span in which {@code failuresMax} failures make the storage failing. */
    public static final long WINDOW_MS = 60_000;

    private final String ownUuid;
    private final int failuresMax;
    private final LongSupplier monotonicNanos;
    /** When the failures of the last window happened (at most failuresMax kept). */
    private final ArrayDeque<Long> recentNanos = new ArrayDeque<>();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean failing;

    public StorageHealth(String ownUuid, int failuresMax, LongSupplier monotonicNanos) {
        this.ownUuid = ownUuid;
        this.failuresMax = failuresMax;
        this.monotonicNanos = monotonicNanos;
    }

    /**
     * Counts a storage I/O failure of a request ({@code kind} of {@code fileId}) and returns the answer for it:
     * CHAIN_MEMBER_UNREACHABLE naming this OSD for a replicated file, else INTERNAL; both name the cause.
     */
    public RpcException failed(String fileId, String kind, boolean replicated, Exception cause) {
        failures.incrementAndGet();
        long now = monotonicNanos.getAsLong();
        synchronized (recentNanos) {
            recentNanos.addLast(now);
            while (recentNanos.size() > failuresMax
                    || (!recentNanos.isEmpty() && now - recentNanos.peekFirst() > WINDOW_MS * 1_000_000L)) {
                recentNanos.pollFirst();
            }
            if (failuresMax > 0 && recentNanos.size() >= failuresMax) {
                failing = true;
            }
        }
        String message = "storage I/O failed on file " + fileId + " (" + kind + ") at OSD " + ownUuid + ": " + cause
                + (failing ? "; its storage is failing (" + failuresMax + " failures within " + WINDOW_MS
                        + " ms), so it leaves its chains" : "");
        return replicated ? RpcException.chainMemberUnreachable(ownUuid, message) : RpcException.internal(message);
    }

    /** True once the storage failed {@code failuresMax} times within the window (until the OSD restarts). */
    public boolean failing() {
        return failing;
    }

    /** Storage I/O failures of requests since start. */
    public long failures() {
        return failures.get();
    }
}
