package org.xtreemfs.mrc.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.mrc.ops.OneBatchPerOperationTest.CountingStore;

/**
 * The journal on its own, with an operation that allocates an inode number (a visible change per application):
 * exactly one application per (client, number), the outcome in the operation's own batch, nothing recorded
 * for failed or empty operations, and its bounds (retention, cap) and their cleaning.
 */
class OutcomeJournalTest {
    private static final String VOLUME_ID = "00000000-0000-0000-0000-000000000001";
    private static final int MKDIR = 7;
    private final CountingStore store = new CountingStore();
    private final Namespace namespace = new Namespace(store, Durability.BUFFERED, AtimePolicy.RELATIME);

    @BeforeEach
    void createVolume() {
        Transaction transaction = namespace.begin();
        namespace.putVolume(transaction, Volume.newBuilder().setId(VOLUME_ID).setName("vol").build());
        namespace.putRootDirectory(transaction, VOLUME_ID, Stat.newBuilder().setInode(Namespace.ROOT_INODE)
                .setMode(FileModes.S_IFDIR | 0755).setNlink(2).build());
        transaction.commit();
    }

    private Callable<Long> allocate() {
        return () -> {
            Transaction transaction = namespace.begin();
            long inode = namespace.allocateInode(transaction, VOLUME_ID);
            transaction.commit();
            return inode;
        };
    }

    /** Point reads of outcome records so far. */
    private int outcomeLookups() {
        return (int) store.gotKeys.stream().filter(key -> key.length > 0 && key[0] == KvLayout.OUTCOME).count();
    }

    private long once(OutcomeJournal journal, String client, long number, long nowMs) throws Exception {
        return journal.applyOnce(client, number, MKDIR, nowMs, allocate(),
                inode -> ByteBuffer.allocate(8).putLong(inode).array(), bytes -> ByteBuffer.wrap(bytes).getLong());
    }

    @Test
    void aRepeatGetsTheRecordedOutcomeAndChangesNothingInOneBatchPerApplication() throws Exception {
        OutcomeJournal journal = new OutcomeJournal(namespace, 60_000, 1_000);
        int batchesBefore = store.batches;
        long first = once(journal, "a", 1, 1_000);
        assertThat(store.batches - batchesBefore).as("operation and outcome in one batch").isEqualTo(1);
        assertThat(once(journal, "a", 1, 2_000)).isEqualTo(first);
        assertThat(store.batches - batchesBefore).as("a repeat writes nothing").isEqualTo(1);
        assertThat(namespace.allocatedInodes(VOLUME_ID)).isEqualTo(first);
        assertThat(once(journal, "a", 2, 2_000)).as("a new number is applied").isEqualTo(first + 1);
        assertThat(once(journal, "b", 1, 2_000)).as("so is another client's").isEqualTo(first + 2);
        assertThat(journal.replays()).isEqualTo(1);
        assertThat(new OutcomeJournal(namespace, 60_000, 1_000).records()).as("counted again after a restart")
                .isEqualTo(3);
    }

    @Test
    void aNumberAboveEveryRecordedNumberOfItsClientIsNotLookedUpAndRepeatsStillAreAlsoAfterARestart() throws Exception {
        OutcomeJournal journal = new OutcomeJournal(namespace, 60_000, 1_000);
        byte[] recordOfA5 = KvLayout.outcome("a", 5);
        int getsBefore = outcomeLookups();
        long first = once(journal, "a", 5, 1_000);
        once(journal, "a", 6, 1_000);
        once(journal, "b", 1, 1_000);
        assertThat(outcomeLookups() - getsBefore).as("new clients and rising numbers: no record to look for").isZero();
        assertThat(journal.lookupsSkipped()).isEqualTo(3);
        assertThat(store.get(recordOfA5)).as("recorded all the same").isPresent();

        getsBefore = outcomeLookups();
        assertThat(once(journal, "a", 5, 2_000)).as("a repeat is looked up and answered").isEqualTo(first);
        long overtaken = once(journal, "a", 4, 2_000);
        assertThat(outcomeLookups() - getsBefore).as("numbers at or below the highest are looked up").isEqualTo(2);
        assertThat(once(journal, "a", 4, 2_000)).as("a lower number, recorded, repeats its outcome").isEqualTo(overtaken);

        OutcomeJournal reopened = new OutcomeJournal(namespace, 60_000, 1_000);
        long inodesBefore = namespace.allocatedInodes(VOLUME_ID);
        assertThat(once(reopened, "a", 6, 3_000)).as("after a restart the stored numbers are known")
                .isEqualTo(first + 1);
        assertThat(once(reopened, "b", 1, 3_000)).isEqualTo(first + 2);
        assertThat(namespace.allocatedInodes(VOLUME_ID)).as("nothing applied twice").isEqualTo(inodesBefore);
        assertThat(reopened.replays()).isEqualTo(2);
        getsBefore = outcomeLookups();
        once(reopened, "a", 7, 3_000);
        once(reopened, "c", 1, 3_000);
        assertThat(outcomeLookups() - getsBefore).as("and higher numbers and new clients skip the look-up").isZero();
    }

    @Test
    void failedAndEmptyOperationsRecordNothingAndReuseForAnotherProcedureIsRefused() throws Exception {
        OutcomeJournal journal = new OutcomeJournal(namespace, 60_000, 1_000);
        assertThatThrownBy(() -> journal.applyOnce("a", 1, MKDIR, 0, () -> {
            Transaction transaction = namespace.begin();
            namespace.allocateInode(transaction, VOLUME_ID);
            transaction.commit();
            throw RpcException.errno(17, "after its commit, the operation fails");
        }, inode -> new byte[0], bytes -> 0L)).isInstanceOf(RpcException.class);
        assertThat(namespace.allocatedInodes(VOLUME_ID)).as("the failed operation's writes are dropped").isEqualTo(1);
        assertThat(journal.applyOnce("a", 2, MKDIR, 0, () -> 5L, inode -> new byte[0], bytes -> 0L)).isEqualTo(5L);
        assertThat(journal.records()).isZero();
        once(journal, "a", 3, 0);
        assertThatThrownBy(() -> journal.applyOnce("a", 3, MKDIR + 1, 0, allocate(), inode -> new byte[0],
                bytes -> 0L)).isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS));
        assertThatThrownBy(() -> once(journal, "x".repeat(129), 1, 0)).isInstanceOf(RpcException.class);
    }

    @Test
    void recordsPastTheirRetentionOrOverTheCapAreRemovedOldestFirst() throws Exception {
        OutcomeJournal journal = new OutcomeJournal(namespace, 10_000, 3);
        for (long number = 1; number <= 6; number++) {
            once(journal, "a", number, 1_000 + number);
        }
        assertThat(journal.records()).as("at most the cap").isEqualTo(3);
        assertThat(outcomeKeys()).isEqualTo(3);
        long fourth = namespace.allocatedInodes(VOLUME_ID) - 2;
        assertThat(once(journal, "a", 4, 1_010)).as("kept: answered from the record").isEqualTo(fourth);
        long before = namespace.allocatedInodes(VOLUME_ID);
        assertThat(once(journal, "a", 1, 1_010)).as("removed: applied again").isEqualTo(before + 1);

        // Far later: each new record removes up to two expired ones.
        once(journal, "b", 1, 100_000);
        once(journal, "b", 2, 100_000);
        assertThat(journal.records()).isEqualTo(2);
        assertThat(outcomeKeys()).isEqualTo(2);
    }

    @Test
    void aChangeWritesOneJournalKeyAndEachRemovalDeletesOneWithoutReadingTheStore() throws Exception {
        // Proves the journal's share of a change's batch: the record alone (builds before session 17 also wrote a
        // time-index key per record and deleted two keys per removal), and that finding due records reads nothing.
        OutcomeJournal journal = new OutcomeJournal(namespace, 10_000, 10_000);
        int iterators = store.iterators;
        int lookups = outcomeLookups();
        for (long number = 1; number <= 600; number++) {
            once(journal, "a", number, 1_000 + number);
            assertThat(journalPuts(store.lastBatch)).as("one record key per change").isEqualTo(1);
            assertThat(journalDeletes(store.lastBatch)).as("nothing due yet").isZero();
        }
        for (long number = 1; number <= 300; number++) {
            once(journal, "b", number, 100_000); // each removes two expired records, oldest first
            assertThat(journalPuts(store.lastBatch)).isEqualTo(1);
            assertThat(journalDeletes(store.lastBatch)).as("one key per removed record").isEqualTo(2);
        }
        assertThat(store.iterators - iterators).as("no scan to find the oldest records").isZero();
        assertThat(outcomeLookups() - lookups).as("no look-up of rising numbers").isZero();
        assertThat(journal.records()).isEqualTo(300);
        assertThat(outcomeKeys()).isEqualTo(300);
        long allocated = namespace.allocatedInodes(VOLUME_ID);
        assertThat(once(journal, "b", 1, 100_001)).as("b1 kept: answered from its record").isLessThan(allocated);
        assertThat(once(journal, "a", 600, 100_001)).as("a600 removed: applied again").isEqualTo(allocated + 1);
    }

    @Test
    void aRecordStampedBeforeEarlierOnesIsRemovedInRecordingOrderNeverBeforeItsRetention() throws Exception {
        OutcomeJournal journal = new OutcomeJournal(namespace, 10_000, 10_000);
        once(journal, "c", 1, 300_000);
        once(journal, "c", 2, 50_000); // the wall clock went back
        once(journal, "c", 3, 300_001);
        assertThat(journal.records()).as("c2 waits behind c1, which is not due").isEqualTo(3);
        once(journal, "c", 4, 310_001); // c1 due: removed, then c2 (due since 60,000)
        assertThat(journal.records()).isEqualTo(2);
        long allocated = namespace.allocatedInodes(VOLUME_ID);
        assertThat(once(journal, "c", 3, 310_002)).as("c3 kept").isLessThan(allocated);
        assertThat(once(journal, "c", 2, 310_002)).as("c2 removed: applied again").isEqualTo(allocated + 1);
        assertThat(journal.records()).as("its new record removed c3 (300,001), now due").isEqualTo(2);
        assertThat(new OutcomeJournal(namespace, 10_000, 10_000).records()).as("counted again after a restart")
                .isEqualTo(2);
    }

    @Test
    void theTimeIndexOfOlderBuildsIsDeletedAtOpenAndTheirRecordsExpireByTheirTimes() throws Exception {
        // A store written by a build before session 17: each record ('R') with its index key ('r' time key).
        long first = once(new OutcomeJournal(namespace, 10_000, 10_000), "old", 1, 5_000);
        once(new OutcomeJournal(namespace, 10_000, 10_000), "old", 2, 1_000);
        org.xtreemfs.foundation.kv.WriteBatch index = new org.xtreemfs.foundation.kv.WriteBatch();
        index.put(legacyIndexKey(5_000, "old", 1), new byte[0]);
        index.put(legacyIndexKey(1_000, "old", 2), new byte[0]);
        store.write(index, Durability.BUFFERED);

        OutcomeJournal journal = new OutcomeJournal(namespace, 10_000, 10_000);
        assertThat(keysOf(KvLayout.OUTCOME_BY_TIME)).as("the old index is gone").isZero();
        assertThat(journal.records()).isEqualTo(2);
        assertThat(once(journal, "old", 1, 6_000)).as("its records still answer repeats").isEqualTo(first);
        once(journal, "new", 1, 11_001); // removes old2 (1,000) only: old1 (5,000) is within its retention
        assertThat(journal.records()).isEqualTo(2);
        long allocated = namespace.allocatedInodes(VOLUME_ID);
        assertThat(once(journal, "old", 1, 11_002)).as("old1 kept").isEqualTo(first);
        assertThat(once(journal, "old", 2, 11_002)).as("old2 removed: applied again").isEqualTo(allocated + 1);
    }

    private static byte[] legacyIndexKey(long recordedAtMs, String client, long number) {
        return org.xtreemfs.foundation.kv.Keys.concat(new byte[] {KvLayout.OUTCOME_BY_TIME},
                org.xtreemfs.foundation.kv.Keys.longBigEndian(recordedAtMs), KvLayout.outcome(client, number));
    }

    private static long journalPuts(org.xtreemfs.foundation.kv.WriteBatch batch) {
        return batch.operations().stream().filter(op -> op instanceof org.xtreemfs.foundation.kv.WriteBatch.Put put
                && isJournalKey(put.key())).count();
    }

    private static long journalDeletes(org.xtreemfs.foundation.kv.WriteBatch batch) {
        return batch.operations().stream().filter(op -> op instanceof org.xtreemfs.foundation.kv.WriteBatch.Delete d
                && isJournalKey(d.key())).count();
    }

    private static boolean isJournalKey(byte[] key) {
        return key.length > 0 && (key[0] == KvLayout.OUTCOME || key[0] == KvLayout.OUTCOME_BY_TIME);
    }

    private int keysOf(byte kind) {
        int count = 0;
        try (KvIterator iterator = store.iterator(KeyRange.prefix(new byte[] {kind}))) {
            while (iterator.hasNext()) {
                iterator.next();
                count++;
            }
        }
        return count;
    }

    private int outcomeKeys() {
        int count = 0;
        try (KvIterator iterator = store.iterator(KeyRange.prefix(new byte[] {KvLayout.OUTCOME}))) {
            while (iterator.hasNext()) {
                iterator.next();
                count++;
            }
        }
        return count;
    }
}
