package org.xtreemfs.mrc.metadata;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.Keys;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
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
 * retention or over the cap, in recording order, in its own batch, so cleaning costs no extra write. A repeat
 * arriving after its record was removed is applied again.
 *
 * <p>One key per record: the record ({@code 'R' client number}) is the only thing written per change, and its
 * removal the only thing deleted. The recording order the removals follow is kept in memory ({@link #queue}:
 * 20 bytes per record, so 20 MB at the default cap of a million), rebuilt from the records' own recording times
 * when the journal opens. Why: builds before issue 10's session 17 also wrote a time-ordered index key per record
 * and deleted two keys per removal, 2 of the 6 keys of a create's or an unlink's batch (RocksDB's memtable inserts
 * were 9 % of the MRC's CPU per create, async-profiler) and 6 of 10 once records expired; and finding the oldest
 * records needed RocksDB scans of that index. Now a change writes 1 journal key and deletes at most 2, and reads none.
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
    /** Where a record's value holds its recording time: after the format version (1 byte) and the procedure. */
    private static final int RECORDED_AT_OFFSET = 1 + Integer.BYTES;
    private static final int REMOVALS_PER_RECORD_MAX = 2;
    /** Keys of the old time index deleted per batch at open. */
    private static final int LEGACY_INDEX_DELETES_PER_BATCH = 10_000;

    private final Namespace namespace;
    private final KvStore store;
    private final long retentionMs;
    private final long recordsMax;
    /**
     * Every stored record, in recording order (after a restart: in order of recording time). Invariant: it holds
     * exactly the records in the store (a record joins after its batch is written, and leaves after its removal's
     * batch is), so {@link #records} is its size. Removals take its front while that is due; a record stamped before
     * the front (the wall clock went back) waits behind it, so it is kept longer, never shorter, than its retention.
     */
    private final RecordQueue queue = new RecordQueue();
    /** Per client with records in {@link #queue}: its one id instance and its count (dropped at 0). */
    private final Map<String, Client> clients = new HashMap<>();
    /** Written in the metadata stage only (one operation at a time); volatile for the status page's reads. */
    private volatile long records;
    private volatile long replays;
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

    /**
     * Reads the stored records once (their recording order and each client's highest number) and deletes the time
     * index older builds wrote.
     */
    public OutcomeJournal(Namespace namespace, long retentionMs, long recordsMax) {
        if (retentionMs <= 0 || recordsMax <= 0) {
            throw new IllegalArgumentException("retentionMs " + retentionMs + " and recordsMax " + recordsMax
                    + " must be positive");
        }
        this.namespace = namespace;
        this.store = namespace.store();
        this.retentionMs = retentionMs;
        this.recordsMax = recordsMax;
        deleteLegacyIndex();
        List<Stored> stored = new ArrayList<>();
        try (KvIterator iterator = store.iterator(KvLayout.allOutcomes())) {
            while (iterator.hasNext()) {
                KvEntry entry = iterator.next();
                Client client = client(KvLayout.outcomeClientId(entry.key()));
                long requestNumber = KvLayout.outcomeRequestNumber(entry.key());
                stored.add(new Stored(recordedAtMs(entry.value()), client, requestNumber));
                noteRecorded(client.id, requestNumber);
            }
        }
        stored.sort(Comparator.comparingLong(Stored::recordedAtMs));
        for (Stored record : stored) {
            queue.addLast(record.recordedAtMs(), record.client(), record.requestNumber());
        }
        records = queue.size();
    }

    /** A record read at open; its client is the one instance all of that client's records share. */
    private record Stored(long recordedAtMs, Client client, long requestNumber) {}

    /** Deletes the 'r' keys builds before session 17 wrote (nothing reads them now), a batch at a time. */
    private void deleteLegacyIndex() {
        long deleted = 0;
        KeyRange index = KvLayout.legacyOutcomeIndex();
        KeyRange left = index;
        while (true) {
            List<KvEntry> keys = store.scan(left, LEGACY_INDEX_DELETES_PER_BATCH);
            if (keys.isEmpty()) {
                break;
            }
            WriteBatch batch = new WriteBatch();
            keys.forEach(entry -> batch.delete(entry.key()));
            store.write(batch, Durability.SYNC);
            deleted += keys.size();
            // The next scan starts after the keys just deleted, not over their tombstones.
            left = KeyRange.between(Keys.concat(keys.get(keys.size() - 1).key(), new byte[] {0}),
                    index.endExclusive());
        }
        if (deleted > 0) {
            LOG.info("deleted the {} keys of the outcomes' old time index (the records stay)", deleted);
        }
    }

    private static long recordedAtMs(byte[] value) {
        if (value.length < RECORDED_AT_OFFSET + Long.BYTES || value[0] != FORMAT_VERSION) {
            throw new IllegalStateException("outcome record of " + value.length + " bytes, format "
                    + (value.length > 0 ? value[0] : -1) + ", expected " + FORMAT_VERSION);
        }
        return ByteBuffer.wrap(value, RECORDED_AT_OFFSET, Long.BYTES).getLong();
    }

    /** The one instance of this client id that the queue holds (created at its first record). */
    private Client client(String clientId) {
        return clients.computeIfAbsent(clientId, Client::new);
    }

    /** A client with records in the queue. */
    private static final class Client {
        final String id;
        int records;

        Client(String id) {
            this.id = id;
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
        changes.put(ByteBuffer.wrap(key), Optional.of(ByteBuffer.allocate(RECORDED_AT_OFFSET + Long.BYTES
                + outcome.length).put((byte) FORMAT_VERSION).putInt(procedureId).putLong(recordedAtMs)
                .put(outcome).array()));
        int removed = removeDue(changes, recordedAtMs);
        namespace.write(changes, namespace.durability());
        for (int i = 0; i < removed; i++) {
            Client gone = queue.removeFirst();
            if (--gone.records == 0) {
                clients.remove(gone.id);
            }
        }
        queue.addLast(recordedAtMs, client(clientId), requestNumber);
        noteRecorded(clientId, requestNumber);
        records = queue.size();
        return result;
    }

    /**
     * Adds the removal of up to two records past their retention or over the cap to {@code changes} and returns how
     * many: the first that many of {@link #queue}, which the caller drops once the batch is written. Reads nothing.
     */
    private int removeDue(Map<ByteBuffer, Optional<byte[]>> changes, long nowMs) {
        int removed = 0;
        while (removed < REMOVALS_PER_RECORD_MAX && removed < queue.size()) {
            boolean due = queue.recordedAtMs(removed) < nowMs - retentionMs
                    || queue.size() + 1 - removed > recordsMax;
            if (!due) {
                break;
            }
            changes.put(ByteBuffer.wrap(KvLayout.outcome(queue.client(removed).id, queue.requestNumber(removed))),
                    Optional.empty());
            removed++;
        }
        return removed;
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

    /** A growable ring of (recording time, client, request number): 20 bytes per record with compressed references. */
    private static final class RecordQueue {
        private long[] recordedAtMs = new long[16];
        private long[] requestNumbers = new long[16];
        private Client[] clients = new Client[16];
        private int head;
        private int size;

        int size() {
            return size;
        }

        long recordedAtMs(int index) {
            return recordedAtMs[slot(index)];
        }

        Client client(int index) {
            return clients[slot(index)];
        }

        long requestNumber(int index) {
            return requestNumbers[slot(index)];
        }

        void addLast(long atMs, Client client, long requestNumber) {
            if (size == clients.length) {
                grow();
            }
            int slot = slot(size);
            recordedAtMs[slot] = atMs;
            clients[slot] = client;
            requestNumbers[slot] = requestNumber;
            client.records++;
            size++;
        }

        /** Removes the oldest and returns its client (whose count the caller lowers). */
        Client removeFirst() {
            Client client = clients[head];
            clients[head] = null;
            head = (head + 1) % clients.length;
            size--;
            return client;
        }

        private int slot(int index) {
            if (index < 0 || index > size) { // size itself: the slot addLast fills
                throw new IndexOutOfBoundsException(index + " of " + size);
            }
            return (head + index) % clients.length;
        }

        private void grow() {
            int capacity = clients.length * 2;
            long[] times = new long[capacity];
            long[] numbers = new long[capacity];
            Client[] owners = new Client[capacity];
            for (int i = 0; i < size; i++) {
                int from = (head + i) % clients.length;
                times[i] = recordedAtMs[from];
                numbers[i] = requestNumbers[from];
                owners[i] = clients[from];
            }
            recordedAtMs = times;
            requestNumbers = numbers;
            clients = owners;
            head = 0;
        }
    }
}
