package org.xtreemfs.mrc.metadata;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.Keys;
import org.xtreemfs.foundation.rpc.RpcException;

/**
 * Exactly-once application of changes that a client may repeat after a lost answer (a timeout, a reset
 * connection, an MRC restart). A request naming its client and number ({@code RequestHeader.client_id},
 * {@code request_number}) is applied at most once: its outcome is recorded in the SAME write batch as the
 * operation's changes, so after any crash either both or neither exist, and a repeat of an applied
 * request gets the recorded outcome instead of being applied again (a retried create answers with the file
 * it created, not EEXIST; a retried rename with its result, not ENOENT).
 *
 * <p>Only successful operations that changed the store are recorded; a failed one changed nothing, and an
 * operation that wrote nothing does the same when repeated. Bounds: a record lives at least
 * {@code retentionMs} (which must exceed the clients' retry window plus one request timeout) and at most
 * {@code recordsMax} records are kept; each recording removes up to two records that are past their
 * retention or over the cap, oldest first, in its own batch, so cleaning costs no extra write. A repeat
 * arriving after its record was removed is applied again.
 *
 * <p>Runs in the metadata stage only (one operation at a time, on its thread or on a network thread that
 * applies while it is idle): the lookup and the recording cannot interleave with another attempt of the
 * same request, so of two attempts in the queue the first applies and the second replays.
 */
public final class OutcomeJournal {
    /** Longest {@code client_id} accepted (bytes of UTF-8). */
    public static final int CLIENT_ID_BYTES_MAX = 128;
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeJournal.class);
    private static final int FORMAT_VERSION = 1;
    private static final int REMOVALS_PER_RECORD_MAX = 2;

    private final Namespace namespace;
    private final KvStore store;
    private final long retentionMs;
    private final long recordsMax;
    /** Written in the metadata stage only (one operation at a time); volatile for the status page's reads. */
    private volatile long records;
    private volatile long replays;
    /** Recording time of the oldest record when known (then no scan is needed until it expires), else null. */
    private Long oldestRecordedAtMs;
    /**
     * The time-index keys of the oldest records, read ahead by one scan ({@link #OLDEST_READ_AHEAD} at a time) and
     * removed from the front once their removal is written. Why: once records expire steadily (after
     * {@code retentionMs} of changes) every change removes up to two, and a RocksDB iterator per change cost about
     * 5 % of the MRC's CPU per create (perf); a scan from the start of the index also stepped over the tombstones
     * of every record removed since RocksDB last compacted them, which made a create or unlink cost about 8 ms of
     * MRC CPU after five minutes of changes (perf: RocksDB's iterator skipping deleted entries, 60 % of the MRC).
     * Invariant: these are the oldest stored records in time-index order, and no stored record sorts before them or
     * between them (a new record stamped before the last of them, possible only when the wall clock went back,
     * empties them and {@link #removedThrough}: the next scan starts from the beginning).
     */
    private final ArrayDeque<byte[]> oldest = new ArrayDeque<>();
    private static final int OLDEST_READ_AHEAD = 256;
    /**
     * The time-index key of the last record removed (its batch written): the next scan starts after it, past the
     * tombstones RocksDB keeps until it compacts them. Null: from the start.
     */
    private byte[] removedThrough;
    /** Most client ids whose highest recorded request number is kept ({@link #highestRecorded}). */
    static final int CLIENTS_TRACKED_MAX = 65_536;
    /**
     * Per client id, a number at least as high as every request number of it that has a record (stored ones when
     * the journal opened, and every one recorded since). A request numbered higher cannot have a record, so it is
     * applied without looking one up: both clients number a client's requests upwards, and that look-up (a RocksDB
     * get that finds nothing) was about 6 % of the MRC's CPU per create or unlink through FUSE (async-profiler).
     * A lower or equal number (a repeat, or requests of one client overtaking each other) is looked up as before.
     * Bounded by {@link #CLIENTS_TRACKED_MAX}; a client beyond it is always looked up ({@link #everyClientTracked}).
     */
    private final Map<String, Long> highestRecorded = new HashMap<>();
    /** False once a client with records could not be tracked: untracked clients are then looked up. */
    private boolean everyClientTracked = true;
    private volatile long lookupsSkipped;

    /** Counts the stored records once (at most {@code recordsMax} plus a few) and learns each client's highest number. */
    public OutcomeJournal(Namespace namespace, long retentionMs, long recordsMax) {
        if (retentionMs <= 0 || recordsMax <= 0) {
            throw new IllegalArgumentException("retentionMs " + retentionMs + " and recordsMax " + recordsMax
                    + " must be positive");
        }
        this.namespace = namespace;
        this.store = namespace.store();
        this.retentionMs = retentionMs;
        this.recordsMax = recordsMax;
        try (KvIterator iterator = store.iterator(KvLayout.allOutcomesByTime())) {
            while (iterator.hasNext()) {
                byte[] outcomeKey = KvLayout.outcomeKeyOf(iterator.next().key());
                noteRecorded(KvLayout.outcomeClientId(outcomeKey), KvLayout.outcomeRequestNumber(outcomeKey));
                records++;
            }
        }
    }

    private void noteRecorded(String clientId, long requestNumber) {
        Long highest = highestRecorded.get(clientId);
        if (highest != null) {
            if (requestNumber > highest) {
                highestRecorded.put(clientId, requestNumber);
            }
        } else if (highestRecorded.size() < CLIENTS_TRACKED_MAX) {
            highestRecorded.put(clientId, requestNumber);
        } else {
            everyClientTracked = false;
        }
    }

    /** Whether a record of this request may exist (else none does, and the look-up is skipped). */
    private boolean mayBeRecorded(String clientId, long requestNumber) {
        Long highest = highestRecorded.get(clientId);
        return highest == null ? !everyClientTracked : requestNumber <= highest;
    }

    /**
     * Applies {@code operation} once for ({@code clientId}, {@code requestNumber}): the first time it runs
     * and its changes commit with its encoded outcome; afterwards the recorded outcome is decoded and
     * returned without running it. INVALID_ARGS when the number was used for another procedure or the id
     * is too long. {@code nowMs} is the prepared wall clock (apply reads no clock).
     */
    public <T> T applyOnce(String clientId, long requestNumber, int procedureId, long nowMs, Callable<T> operation,
            Function<T, byte[]> encode, Function<byte[], T> decode) throws Exception {
        if (clientId.getBytes(StandardCharsets.UTF_8).length > CLIENT_ID_BYTES_MAX) {
            throw RpcException.invalidArguments("client_id of " + clientId.getBytes(StandardCharsets.UTF_8).length
                    + " bytes is longer than " + CLIENT_ID_BYTES_MAX);
        }
        byte[] key = KvLayout.outcome(clientId, requestNumber);
        Optional<byte[]> recorded;
        if (mayBeRecorded(clientId, requestNumber)) {
            recorded = store.get(key);
        } else {
            recorded = Optional.empty();
            lookupsSkipped++;
        }
        if (recorded.isPresent()) {
            ByteBuffer value = ByteBuffer.wrap(recorded.get());
            int version = value.get();
            if (version != FORMAT_VERSION) {
                throw new IllegalStateException("outcome record of format " + version + ", expected "
                        + FORMAT_VERSION);
            }
            int recordedProcedure = value.getInt();
            if (recordedProcedure != procedureId) {
                throw RpcException.invalidArguments("request number " + requestNumber + " of client '" + clientId
                        + "' was procedure " + recordedProcedure + ", now procedure " + procedureId
                        + "; a client must not reuse request numbers");
            }
            long recordedAtMs = value.getLong();
            replays++;
            LOG.info("request {} of client '{}' (procedure {}) repeated; answered with its outcome recorded at {}",
                    requestNumber, clientId, procedureId, recordedAtMs);
            return decode.apply(Arrays.copyOfRange(value.array(), value.position(), value.limit()));
        }
        Map<ByteBuffer, Optional<byte[]>> changes = new LinkedHashMap<>();
        T result = namespace.holdingWrites(changes, operation);
        if (changes.isEmpty()) {
            return result;
        }
        byte[] outcome = encode.apply(result);
        long recordedAtMs = Math.max(0, nowMs);
        changes.put(ByteBuffer.wrap(key), Optional.of(ByteBuffer.allocate(1 + Integer.BYTES + Long.BYTES
                + outcome.length).put((byte) FORMAT_VERSION).putInt(procedureId).putLong(recordedAtMs)
                .put(outcome).array()));
        byte[] byTimeKey = KvLayout.outcomeByTime(recordedAtMs, clientId, requestNumber);
        changes.put(ByteBuffer.wrap(byTimeKey), Optional.of(new byte[0]));
        int removed = removeOld(changes, recordedAtMs);
        namespace.write(changes, namespace.durability());
        noteRecorded(clientId, requestNumber);
        records += 1 - removed;
        for (int i = 0; i < removed; i++) {
            removedThrough = oldest.pollFirst();
        }
        if ((removedThrough != null && Arrays.compareUnsigned(byTimeKey, removedThrough) < 0)
                || (!oldest.isEmpty() && Arrays.compareUnsigned(byTimeKey, oldest.peekLast()) < 0)) {
            // Stamped before records read ahead or removed (the wall clock went back): start over from the beginning.
            oldest.clear();
            removedThrough = null;
            oldestRecordedAtMs = null;
        }
        return result;
    }

    /**
     * Adds the removal of up to two records past their retention or over the cap to {@code changes} and returns how
     * many: the first that many of {@link #oldest}, which the caller drops once the batch is written. Looks only
     * when something may be due: over the cap, or the oldest record unknown or expired; scans the time index only
     * when no read-ahead key is left, and then after the records removed before.
     */
    private int removeOld(Map<ByteBuffer, Optional<byte[]>> changes, long nowMs) {
        if (records < recordsMax && oldestRecordedAtMs != null && oldestRecordedAtMs >= nowMs - retentionMs) {
            return 0;
        }
        int removed = 0;
        Iterator<byte[]> keys = oldest.iterator();
        while (true) {
            if (!keys.hasNext()) {
                // Read-ahead used up: the index ended (then this record is the oldest after the removals), or the
                // two removals are done (the oldest is unknown until the next scan), or read on.
                if (removed == REMOVALS_PER_RECORD_MAX) {
                    oldestRecordedAtMs = null;
                    break;
                }
                if (readOldest() == 0) {
                    oldestRecordedAtMs = nowMs;
                    break;
                }
                keys = oldest.iterator();
                for (int skipped = 0; skipped < removed; skipped++) {
                    keys.next();
                }
            }
            byte[] key = keys.next();
            long recordedAtMs = KvLayout.outcomeRecordedAtMs(key);
            boolean due = recordedAtMs < nowMs - retentionMs || records + 1 - removed > recordsMax;
            if (!due || removed == REMOVALS_PER_RECORD_MAX) {
                oldestRecordedAtMs = Math.min(recordedAtMs, nowMs);
                break;
            }
            changes.put(ByteBuffer.wrap(key), Optional.empty());
            changes.put(ByteBuffer.wrap(KvLayout.outcomeKeyOf(key)), Optional.empty());
            removed++;
        }
        return removed;
    }

    /**
     * Appends the next {@link #OLDEST_READ_AHEAD} keys of the time index after those read ahead already, or after
     * {@link #removedThrough} when none are; returns how many.
     */
    private int readOldest() {
        byte[] after = oldest.isEmpty() ? removedThrough : oldest.peekLast();
        KeyRange index = KvLayout.allOutcomesByTime();
        KeyRange unread = after == null ? index
                : KeyRange.between(Keys.concat(after, new byte[] {0}), index.endExclusive());
        int read = 0;
        try (KvIterator iterator = store.iterator(unread)) {
            while (read < OLDEST_READ_AHEAD && iterator.hasNext()) {
                oldest.addLast(iterator.next().key());
                read++;
            }
        }
        return read;
    }

    /** Records kept now. */
    public long records() {
        return records;
    }

    /** Requests applied without looking up a record, since start (none could exist: {@link #highestRecorded}). */
    public long lookupsSkipped() {
        return lookupsSkipped;
    }

    /** Repeats answered from a record since start. */
    public long replays() {
        return replays;
    }
}
