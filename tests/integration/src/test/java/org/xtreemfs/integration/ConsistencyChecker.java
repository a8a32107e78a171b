package org.xtreemfs.integration;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A history of register operations on replicated files and the check that it is consistent as chain replication
 * with clean reads promises (servers/osd README, "Consistent reads"). Each slot (a file and a fixed byte range in
 * it) is a register written by exactly one writer with versions 1, 2, ... (0: the initial fill); its bytes encode
 * the slot and version throughout, so a read decodes the version it saw and a torn or foreign content is caught.
 *
 * <p>Checked for every read R of a slot, with times from one clock ({@link System#nanoTime}, all clients in this
 * JVM):
 * <ul>
 *   <li>the content is whole: one slot, one version, every byte as that version writes it;</li>
 *   <li>nothing from nowhere: R's version was written, by a write invoked before R returned;</li>
 *   <li>no uncommitted or lost data and nothing older than seen: R's version is at least the version of every
 *       write acknowledged before R was invoked, and of every read (by any client) that returned before R was
 *       invoked; in particular a client's reads of a slot never go backwards.</li>
 * </ul>
 * A read of an update the tail applied but had not acknowledged yet is allowed (chain replication commits at the
 * tail); were such an update lost (an OSD kill), a later read returning the older version would fail the third
 * rule, so the same check serves a test with kills. A write whose call failed ({@link #writeFailed}) has an unknown
 * outcome: a read may return it, but it raises no floor; a read of it followed by a read of an older version is
 * named as what it is, a read of uncommitted data. (A read of uncommitted data that nothing later contradicts is
 * indistinguishable from a read of an update committed just after it, so no history check can find it.)
 *
 * <p>What closes that gap is knowing when nothing can commit: while a chain member is held back ({@link #heldBack}:
 * its process stopped), an update that reaches the head after the member stopped cannot reach the tail before the
 * member resumes. So a read that returned before the member resumed, of a version whose write was invoked after it
 * stopped, returned uncommitted data, whatever comes later (a fourth rule, checked for every recorded hold).
 * Thread-safe recording.
 */
final class ConsistencyChecker {
    /** One operation: a write of {@code version} or a read that returned {@code version}, with its interval. */
    record Operation(boolean write, String client, int slot, long version, long invokedNanos, long completedNanos) {
        /** A write whose call failed: it may or may not have been applied, and it was never acknowledged. */
        boolean unacknowledged() {
            return write && completedNanos == NEVER;
        }
    }

    /** The completion time of a write that was never acknowledged: after every time of the history. */
    private static final long NEVER = Long.MAX_VALUE;

    private final int slotBytes;
    private final ConcurrentLinkedQueue<Operation> history = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> malformed = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();

    /** A time in which no write invoked within it can commit: see {@link #heldBack}. */
    private record Hold(String member, long fromNanos, long untilNanos) {}

    ConsistencyChecker(int slotBytes) {
        if (slotBytes < 16) {
            throw new IllegalArgumentException("slotBytes must be >= 16, was " + slotBytes);
        }
        this.slotBytes = slotBytes;
    }

    /** The bytes version {@code version} of {@code slot} holds. */
    byte[] content(int slot, long version) {
        byte[] bytes = new byte[slotBytes];
        ByteBuffer.wrap(bytes).putLong(slot).putLong(version);
        byte fill = (byte) (31 * slot + 17 * version + 1);
        Arrays.fill(bytes, 16, bytes.length, fill);
        return bytes;
    }

    void wrote(String client, int slot, long version, long invokedNanos, long completedNanos) {
        if (completedNanos == NEVER) {
            throw new IllegalArgumentException("completedNanos " + NEVER + " is reserved for writeFailed");
        }
        history.add(new Operation(true, client, slot, version, invokedNanos, completedNanos));
    }

    /**
     * Records a write of {@code version} whose call failed: its outcome is unknown (the chain may have applied and
     * even committed it), so a read may return it, but nothing must rely on it.
     */
    void writeFailed(String client, int slot, long version, long invokedNanos) {
        history.add(new Operation(true, client, slot, version, invokedNanos, NEVER));
    }

    /**
     * Records a read of {@code slot} that returned {@code bytes}; a malformed content is recorded as a violation.
     * Returns the version read, -1 when malformed.
     */
    long read(String client, int slot, byte[] bytes, long invokedNanos, long completedNanos) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        long storedSlot = bytes.length >= 16 ? buffer.getLong() : -1;
        long version = bytes.length >= 16 ? buffer.getLong() : -1;
        if (storedSlot != slot || version < 0 || !Arrays.equals(bytes, content(slot, version))) {
            malformed.add(client + " read slot " + slot + " and got " + bytes.length + " bytes naming slot "
                    + storedSlot + " version " + version + " that are not that version's content (torn or foreign)");
            return -1;
        }
        history.add(new Operation(false, client, slot, version, invokedNanos, completedNanos));
        return version;
    }

    /**
     * Records that chain member {@code member} was held back (stopped) from {@code fromNanos}, a time after it had
     * stopped, until {@code untilNanos}, a time before it resumed: no write invoked in between can commit before
     * {@code untilNanos}, so a read returning such a write's version before then is a violation (a dirty read).
     */
    void heldBack(String member, long fromNanos, long untilNanos) {
        if (untilNanos <= fromNanos) {
            throw new IllegalArgumentException("a hold of " + member + " must end after it began: from " + fromNanos
                    + " until " + untilNanos);
        }
        holds.add(new Hold(member, fromNanos, untilNanos));
    }

    /** Every operation recorded so far (a copy), for a test's own counts. */
    List<Operation> operations() {
        return List.copyOf(history);
    }

    long reads() {
        return history.stream().filter(operation -> !operation.write()).count();
    }

    long writes() {
        return history.stream().filter(Operation::write).count();
    }

    /** Reads ({@code writes} false) or acknowledged writes invoked at or after {@code fromNanos}. */
    long invokedFrom(boolean writes, long fromNanos) {
        return history.stream().filter(operation -> operation.write() == writes && !operation.unacknowledged()
                && operation.invokedNanos() >= fromNanos).count();
    }

    /** Writes whose call failed. */
    long failedWrites() {
        return history.stream().filter(Operation::unacknowledged).count();
    }

    /** The highest version of {@code slot} whose write was acknowledged; 0 (the initial fill) if none. */
    long lastAcknowledgedVersion(int slot) {
        return history.stream().filter(operation -> operation.write() && operation.slot() == slot
                && !operation.unacknowledged()).mapToLong(Operation::version).max().orElse(0);
    }

    /** Every violation found, at most {@code limit}, each naming the slot, versions and clients; empty if none. */
    List<String> violations(int limit) {
        List<String> found = new ArrayList<>(malformed);
        Map<Integer, List<Operation>> bySlot = new TreeMap<>();
        for (Operation operation : history) {
            bySlot.computeIfAbsent(operation.slot(), slot -> new ArrayList<>()).add(operation);
        }
        for (Map.Entry<Integer, List<Operation>> entry : bySlot.entrySet()) {
            checkSlot(entry.getKey(), entry.getValue(), List.copyOf(holds), found);
            if (found.size() >= limit) {
                break;
            }
        }
        return found.size() > limit ? found.subList(0, limit) : found;
    }

    private static void checkSlot(int slot, List<Operation> operations, List<Hold> holds, List<String> found) {
        Map<Long, Operation> writes = new TreeMap<>();
        for (Operation operation : operations) {
            if (operation.write()) {
                writes.put(operation.version(), operation);
            }
        }
        // Everything completed, ordered by completion: the version a later-invoked read must not fall below.
        List<Operation> completed = new ArrayList<>(operations);
        completed.sort(Comparator.comparingLong(Operation::completedNanos));
        long[] completedAt = new long[completed.size()];
        long[] versionFloor = new long[completed.size()];
        Operation[] floorOperation = new Operation[completed.size()];
        long floor = 0;
        Operation floorBy = null;
        for (int i = 0; i < completed.size(); i++) {
            Operation operation = completed.get(i);
            if (operation.version() > floor) {
                floor = operation.version();
                floorBy = operation;
            }
            completedAt[i] = operation.completedNanos();
            versionFloor[i] = floor;
            floorOperation[i] = floorBy;
        }
        for (Operation read : operations) {
            if (read.write()) {
                continue;
            }
            if (read.version() > 0) {
                Operation write = writes.get(read.version());
                if (write == null || write.invokedNanos() > read.completedNanos()) {
                    found.add(read.client() + " read version " + read.version() + " of slot " + slot
                            + (write == null ? ", which no write produced" : ", written only after the read returned"));
                    continue;
                }
                Hold uncommitted = holdHiding(write, read, holds);
                if (uncommitted != null) {
                    found.add(read.client() + " read version " + read.version() + " of slot " + slot + " "
                            + (uncommitted.untilNanos() - read.completedNanos()) / 1_000_000 + " ms before "
                            + uncommitted.member() + " resumed, but its write by " + write.client() + " was invoked "
                            + (write.invokedNanos() - uncommitted.fromNanos()) / 1_000_000 + " ms after "
                            + uncommitted.member() + " was held back, so it was not committed: a read of"
                            + " uncommitted data (dirty read)");
                    continue;
                }
            }
            // The last operation completed strictly before this read was invoked.
            int index = lastBefore(completedAt, read.invokedNanos());
            if (index >= 0 && versionFloor[index] > read.version()) {
                Operation seen = floorOperation[index];
                Operation seenWrite = writes.get(seen.version());
                boolean uncommitted = !seen.write() && seenWrite != null && seenWrite.unacknowledged();
                found.add(read.client() + " read version " + read.version() + " of slot " + slot + " after "
                        + (seen.write() ? "the write of version " + seen.version() + " by " + seen.client()
                                + " was acknowledged" : seen.client() + " had read version " + seen.version())
                        + " (older than seen" + (uncommitted ? "; " + seen.client() + " read uncommitted data: the"
                                + " write of version " + seen.version() + " was never acknowledged, and it was lost"
                                : "") + ")");
            }
        }
    }

    /** The hold during which {@code write} was invoked and before whose end {@code read} returned; null if none. */
    private static Hold holdHiding(Operation write, Operation read, List<Hold> holds) {
        for (Hold hold : holds) {
            if (write.invokedNanos() >= hold.fromNanos() && write.invokedNanos() < hold.untilNanos()
                    && read.completedNanos() < hold.untilNanos()) {
                return hold;
            }
        }
        return null;
    }

    private static int lastBefore(long[] sortedTimes, long time) {
        int low = 0;
        int high = sortedTimes.length - 1;
        int answer = -1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            if (sortedTimes[middle] < time) {
                answer = middle;
                low = middle + 1;
            } else {
                high = middle - 1;
            }
        }
        return answer;
    }
}
