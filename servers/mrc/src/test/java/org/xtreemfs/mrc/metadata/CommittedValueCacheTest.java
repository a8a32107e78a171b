package org.xtreemfs.mrc.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.ReaddirResponse;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.ops.ReaddirOp;

/**
 * The namespace's cache of committed values under sweeps over more keys than it keeps (a stat of every file of a
 * large directory, a listing with attributes): the records every operation reads and the records read often stay
 * cached. Store reads are counted by RocksDB's own counters ({@link RocksKvStore#counts()}, the status page's
 * {@code storeGets}). Its invariant (cached = committed) is tested in {@link NamespaceTest}.
 */
class CommittedValueCacheTest {
    private static final String VOLUME_ID = "00000000-0000-0000-0000-000000000001";
    private static final int KEPT_MAX = Namespace.COMMITTED_VALUES_KEPT_MAX;

    @TempDir
    Path folder;
    private RocksKvStore store;
    private Namespace namespace;
    private final OperationContext context = OperationContext.of(Caller.root(), 1_000);
    private Volume volume;
    private long directory;

    @BeforeEach
    void createVolumeWithOneDirectory() throws Exception {
        store = RocksKvStore.open(RocksKvOptions.defaults(folder.resolve("db")));
        namespace = new Namespace(store, Durability.BUFFERED, AtimePolicy.NOATIME);
        volume = Volume.newBuilder().setId(VOLUME_ID).setName("vol").build();
        directory = NamespaceTest.createVolumeWithDirectory(namespace, volume, context, 0755);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    /** What a stat of "/d/name" reads: the volume by name, then the path from the root. */
    private InodeRecord stat(String name) throws Exception {
        return namespace.resolve(namespace.begin(), namespace.volume("vol"), Caller.root(), "/d/" + name);
    }

    @Test
    void aStatOfEveryFileOfALargeDirectoryReadsEachFileOnceAndTheSharedRecordsNeverAgain() throws Exception {
        // 2 x 16,384 + 100 files in /d, created in one batch, then each stat'ed once. Each stat reads the volume's name
        // and record, the root, the entry "d" and its inode (the same five keys every time) and the file's entry and
        // inode (read only once). Exactly two store gets per stat: the cache never drops the five shared keys. When
        // the cache was emptied on reaching its bound, each emptying cost the next stat five more gets.
        int files = 2 * KEPT_MAX + 100;
        Transaction create = namespace.begin();
        for (int i = 0; i < files; i++) {
            long inode = namespace.allocateInode(create, VOLUME_ID);
            namespace.putInode(create, VOLUME_ID, new InodeRecord(Namespace.newStat(context, inode,
                    FileModes.S_IFREG | 0644, 1, 0, volume).build(), null, null, 0, 0));
            namespace.putDentry(create, VOLUME_ID, directory, "f" + i, inode);
        }
        create.commit();
        stat("f0"); // the shared records' first reads
        long before = store.counts().gets();
        for (int i = 1; i < files; i++) {
            assertThat(stat("f" + i).isRegularFile()).isTrue();
        }
        assertThat(store.counts().gets() - before).as("store gets of %d stats", files - 1).isEqualTo(2L * (files - 1));
        assertThat(namespace.committedValuesKept()).isLessThanOrEqualTo(KEPT_MAX);

        before = store.counts().gets();
        assertThat(namespace.resolve(namespace.begin(), namespace.volume("vol"), Caller.root(), "/d").inode())
                .isEqualTo(directory);
        assertThat(store.counts().gets() - before).as("store gets of the volume and /d after the sweep").isZero();
    }

    @Test
    void recordsReadOftenOutliveASweepOfRecordsReadOnce() throws Exception {
        // A full cache, then 4,000 names looked up three times each (read often), then a sweep of 2 x 16,384 names
        // looked up once (a listing of a huge directory): looking up the 4,000 again costs at most a tenth of them
        // a store get. Emptying when full, or a least-recently-used order, would read all 4,000 again: each of them
        // was last read more than 16,384 other keys ago.
        List<String> often = java.util.stream.IntStream.range(0, 4_000).mapToObj(i -> "often" + i).toList();
        for (int i = 0; i < KEPT_MAX; i++) {
            lookup("before" + i);
        }
        for (int round = 0; round < 3; round++) {
            for (String name : often) {
                lookup(name);
            }
        }
        for (int i = 0; i < 2 * KEPT_MAX; i++) {
            lookup("sweep" + i);
        }
        long before = store.counts().gets();
        for (String name : often) {
            lookup(name);
        }
        assertThat(store.counts().gets() - before).as("store gets of the 4,000 names read often")
                .isLessThanOrEqualTo(often.size() / 10);
        assertThat(namespace.committedValuesKept()).isLessThanOrEqualTo(KEPT_MAX);
    }

    @Test
    void aListingWithAttributesReadsItsPageInOnePassAndCachesNoneOfItsInodes() throws Exception {
        // A page of 3,000 entries with attributes: each entry's Stat is its inode's (as a stat reads it), the inodes
        // (neighbours: created together) are read by one iterator over their span besides the one over the names
        // (the store's own counts: no point get at all; session 16, before it one multi-get of 3,000 keys), and the
        // cache of committed values keeps none of them: before session 12, each entry's point get filled the cache,
        // 3,000 keys read once pushing out keys read often.
        int files = 3_000;
        createFiles(files);
        ReaddirOp.readdir(namespace, context, "vol", "/d", 2, 1, false); // the shared records' first reads
        int keptBefore = namespace.committedValuesKept();
        long getsBefore = store.counts().gets();
        long iteratorsBefore = store.counts().iterators();
        ReaddirResponse page = namespace.read(() -> ReaddirOp.readdir(namespace, context, "vol", "/d", 2, files,
                false));
        assertThat(store.counts().gets() - getsBefore).as("store gets of the listing").isZero();
        assertThat(store.counts().iterators() - iteratorsBefore).as("iterators of the listing").isEqualTo(2);
        assertThat(namespace.committedValuesKept()).as("committed values cached after the listing")
                .isEqualTo(keptBefore);
        assertThat(page.getEntriesCount()).isEqualTo(files);
        assertThat(page.getEndOfDirectory()).isTrue();
        for (int i = 0; i < files; i += 499) {
            DirectoryEntry entry = page.getEntries(i);
            assertThat(entry.getName()).isEqualTo(String.format("f%04d", i));
            assertThat(entry.getStat()).isEqualTo(stat(entry.getName()).stat());
            assertThat(entry.getStat().getSizeBytes()).isEqualTo(i);
        }
    }

    @Test
    void aListingTakesCachedInodesFromTheCacheAndReadsOnlyTheOthersFromTheStore() throws Exception {
        // 3,000 files; before the listing 1,000 of them were stat'ed (cached with their decoded record), 500 read as
        // raw values only (cached, not decoded), and 100 of the stat'ed ones changed afterwards (the cache holds the
        // new, undecoded value). The listing reads only the other 1,500 from the store, leaves the cache as it was, and
        // every entry's Stat equals a stat's, the changed ones included; the 1,500 (every other inode of the span) in one
        // pass of an iterator, no point get (session 16). One multi-get of every entry (session 12) read all 3,000 from
        // the store; main's per-entry loadInode filled the cache with the 1,500 it missed.
        int files = 3_000;
        List<Long> inodes = createFiles(files);
        for (int i = 0; i < files; i += 3) {
            stat(String.format("f%04d", i)); // i % 3 == 0: cached and decoded
        }
        for (int i = 1; i < files; i += 6) {
            namespace.committedValue(KvLayout.inode(VOLUME_ID, inodes.get(i))); // cached, never decoded
        }
        Transaction change = namespace.begin();
        for (int i = 0; i < 300; i += 3) {
            InodeRecord record = namespace.loadInode(change, VOLUME_ID, inodes.get(i));
            namespace.putInode(change, VOLUME_ID,
                    record.withStat(record.stat().toBuilder().setSizeBytes(1_000_000 + i).build()));
        }
        change.commit();
        int keptBefore = namespace.committedValuesKept();
        long getsBefore = store.counts().gets();
        long iteratorsBefore = store.counts().iterators();
        ReaddirResponse page = namespace.read(() -> ReaddirOp.readdir(namespace, context, "vol", "/d", 2, files,
                false));
        assertThat(store.counts().gets() - getsBefore).as("store gets of the listing").isZero();
        assertThat(store.counts().iterators() - iteratorsBefore).as("iterators of the listing").isEqualTo(2);
        assertThat(namespace.committedValuesKept()).as("committed values cached after the listing")
                .isEqualTo(keptBefore);
        assertThat(page.getEntriesCount()).isEqualTo(files);
        for (int i = 0; i < files; i++) {
            DirectoryEntry entry = page.getEntries(i);
            assertThat(entry.getName()).isEqualTo(String.format("f%04d", i));
            assertThat(entry.getStat().getSizeBytes()).isEqualTo(i < 300 && i % 3 == 0 ? 1_000_000 + i : i);
            assertThat(entry.getStat()).isEqualTo(stat(entry.getName()).stat());
        }
    }

    @Test
    void anUnlinkReadsItsNameAndInodeOnceAndLeavesNeitherInTheCache() throws Exception {
        // 2,000 files in /d, each unlinked: one store get for the name and one for its inode (dropLink takes the
        // record the resolution read, no second read), and the cache of committed values keeps neither key: before,
        // each unlink filled two entries that only ever held a deleted key (a Caffeine put each).
        int files = 2_000;
        List<Long> inodes = createFiles(files);
        org.xtreemfs.mrc.ops.UnlinkOp.unlink(namespace, context, "vol", "/d/f0000"); // the shared records' first reads
        int keptBefore = namespace.committedValuesKept();
        long getsBefore = store.counts().gets();
        for (int i = 1; i < files; i++) {
            org.xtreemfs.mrc.ops.UnlinkOp.unlink(namespace, context, "vol", String.format("/d/f%04d", i));
        }
        assertThat(store.counts().gets() - getsBefore).as("store gets of the unlinks").isEqualTo(2L * (files - 1));
        assertThat(namespace.committedValuesKept()).as("committed values cached after the unlinks")
                .isEqualTo(keptBefore);
        assertThat(namespace.hasEntries(VOLUME_ID, directory)).isFalse();
        for (int i = 0; i < files; i += 199) {
            assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, directory, String.format("f%04d", i))).isEmpty();
            long inode = inodes.get(i);
            assertThat(catchThrowable(() -> namespace.inodeOf(namespace.begin(), VOLUME_ID, inode)))
                    .isInstanceOf(org.xtreemfs.foundation.rpc.RpcException.class);
        }
    }

    @Test
    void aCreatesLookUpOfItsNewNameCachesNothingAndOneOfAnExistingNameIsCached() throws Exception {
        // The look-up an O_CREAT open makes of its name (lookupExpectedAbsent): 2,000 absent names leave the cache as
        // it was (before, each filled an entry for a name that only a later lookup would read), and each is still
        // found once created. An existing name is cached: looking it up again reads no store.
        List<Long> inodes = createFiles(1);
        int names = 2_000;
        lookupNew("new0"); // the shared records' first reads
        int keptBefore = namespace.committedValuesKept();
        for (int i = 1; i < names; i++) {
            assertThat(lookupNew("new" + i)).isEmpty();
        }
        assertThat(namespace.committedValuesKept()).as("committed values cached after the look-ups")
                .isEqualTo(keptBefore);
        Transaction create = namespace.begin();
        namespace.putDentry(create, VOLUME_ID, directory, "new7", inodes.get(0));
        create.commit();
        assertThat(lookupNew("new7")).contains(inodes.get(0));
        long getsBefore = store.counts().gets();
        assertThat(lookupNew("new7")).contains(inodes.get(0));
        assertThat(lookupNew("f0000")).contains(inodes.get(0));
        long getsOfFirst = store.counts().gets() - getsBefore;
        getsBefore = store.counts().gets();
        assertThat(lookupNew("f0000")).contains(inodes.get(0));
        assertThat(lookupNew("new7")).contains(inodes.get(0));
        assertThat(store.counts().gets() - getsBefore).as("store gets of cached existing names").isZero();
        assertThat(getsOfFirst).as("store gets of the first look-ups of existing names").isLessThanOrEqualTo(2);
    }

    private java.util.Optional<Long> lookupNew(String name) {
        return namespace.lookupExpectedAbsent(namespace.begin(), VOLUME_ID, directory, name);
    }

    /** Files "f0000", "f0001", ... in /d, file i of size i, in one batch; their inodes in that order. */
    private List<Long> createFiles(int files) throws Exception {
        List<Long> inodes = new java.util.ArrayList<>();
        Transaction create = namespace.begin();
        for (int i = 0; i < files; i++) {
            long inode = namespace.allocateInode(create, VOLUME_ID);
            namespace.putInode(create, VOLUME_ID, new InodeRecord(Namespace.newStat(context, inode,
                    FileModes.S_IFREG | 0644, 1, 0, volume).setSizeBytes(i).build(), null, null, directory, 0));
            namespace.putDentry(create, VOLUME_ID, directory, String.format("f%04d", i), inode);
            inodes.add(inode);
        }
        create.commit();
        return inodes;
    }

    private void lookup(String name) {
        assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, name)).isEmpty();
    }
}
