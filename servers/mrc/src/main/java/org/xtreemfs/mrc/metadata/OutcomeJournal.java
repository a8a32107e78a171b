package org.xtreemfs.mrc.metadata;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
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

    /** Counts the stored records once (at most {@code recordsMax} plus a few). */
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
                iterator.next();
                records++;
            }
        }
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
        Optional<byte[]> recorded = store.get(key);
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
        changes.put(ByteBuffer.wrap(KvLayout.outcomeByTime(recordedAtMs, clientId, requestNumber)),
                Optional.of(new byte[0]));
        long removed = removeOld(changes, recordedAtMs);
        namespace.write(changes, namespace.durability());
        records += 1 - removed;
        return result;
    }

    /**
     * Adds the removal of up to two records past their retention or over the cap to {@code changes}. Scans the
     * time index only when something may be due: over the cap, or the oldest record unknown or expired.
     */
    private long removeOld(Map<ByteBuffer, Optional<byte[]>> changes, long nowMs) {
        if (records < recordsMax && oldestRecordedAtMs != null && oldestRecordedAtMs >= nowMs - retentionMs) {
            return 0;
        }
        long removed = 0;
        oldestRecordedAtMs = nowMs;
        try (KvIterator iterator = store.iterator(KvLayout.allOutcomesByTime())) {
            while (iterator.hasNext()) {
                KvEntry oldest = iterator.next();
                long recordedAtMs = KvLayout.outcomeRecordedAtMs(oldest.key());
                boolean due = recordedAtMs < nowMs - retentionMs || records + 1 - removed > recordsMax;
                if (!due || removed == REMOVALS_PER_RECORD_MAX) {
                    oldestRecordedAtMs = Math.min(recordedAtMs, nowMs);
                    break;
                }
                changes.put(ByteBuffer.wrap(oldest.key()), Optional.empty());
                changes.put(ByteBuffer.wrap(KvLayout.outcomeKeyOf(oldest.key())), Optional.empty());
                removed++;
            }
        }
        return removed;
    }

    /** Records kept now. */
    public long records() {
        return records;
    }

    /** Repeats answered from a record since start. */
    public long replays() {
        return replays;
    }
}
