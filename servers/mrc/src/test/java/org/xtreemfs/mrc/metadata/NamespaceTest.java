package org.xtreemfs.mrc.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * The namespace core on its own: transactions, path resolution and entry access. The operations built on
 * it are tested in org.xtreemfs.mrc.ops, one class per operation.
 */
class NamespaceTest {
    private static final Caller ALICE = new Caller("alice", 1000, 1000, List.of(1000));
    private static final String VOLUME_ID = "00000000-0000-0000-0000-000000000001";

    private final InMemoryKvStore store = new InMemoryKvStore();
    private final Namespace namespace = new Namespace(store, Durability.BUFFERED, AtimePolicy.RELATIME);
    private final OperationContext context = OperationContext.of(Caller.root(), 1_000);
    private Volume volume;

    @BeforeEach
    void createVolumeWithOneDirectory() throws Exception {
        volume = Volume.newBuilder().setId(VOLUME_ID).setName("vol").build();
        createVolumeWithDirectory(namespace, volume, context, 0700);
    }

    /** The volume "vol" ({@code volume}) with its root (0755) and the directory "/d" of {@code mode}: its inode. */
    static long createVolumeWithDirectory(Namespace namespace, Volume volume, OperationContext context, int mode)
            throws RpcException {
        Transaction transaction = namespace.begin();
        namespace.putVolume(transaction, volume);
        namespace.putRootDirectory(transaction, volume.getId(), Stat.newBuilder().setInode(Namespace.ROOT_INODE)
                .setMode(FileModes.S_IFDIR | 0755).setNlink(2).build());
        transaction.commit();
        transaction = namespace.begin();
        Namespace.Entry entry = namespace.resolveNew(transaction, volume, Caller.root(), "/d");
        long inode = namespace.allocateInode(transaction, volume.getId());
        namespace.insertEntry(transaction, volume.getId(), entry, new InodeRecord(Namespace.newStat(context, inode,
                FileModes.S_IFDIR | mode, 2, 0, volume).build(), null, null, Namespace.ROOT_INODE, 0), context);
        transaction.commit();
        return inode;
    }

    private static int errno(RpcException error) {
        return error.posixErrno();
    }

    @Test
    void aReadOnlyOperationThatTriesToWriteIsRefused() {
        assertThatThrownBy(() -> namespace.read(() -> {
            Transaction transaction = namespace.begin();
            namespace.allocateInode(transaction, VOLUME_ID);
            transaction.commit();
            return null;
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("read-only operation");
    }

    @Test
    void readersOnOtherThreadsSeeEveryBatchWholeOrNotAtAll() throws Exception {
        // Each batch writes the same number under two keys; a reader that got one key from before a batch
        // and the other from after it would see two numbers. Reads run under Namespace.read on 2 threads
        // while this thread commits 3,000 batches.
        byte[] first = KvLayout.mrcValue("test.first");
        byte[] second = KvLayout.mrcValue("test.second");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger torn = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            // Reader 0 reads the store, reader 1 through the namespace's cache of committed values.
            java.util.function.Function<byte[], java.util.Optional<byte[]>> get = r == 0 ? store::get
                    : namespace::committedValue;
            Thread reader = new Thread(() -> {
                while (writing.get()) {
                    try {
                        boolean same = namespace.read(() -> {
                            String a = get.apply(first).map(v -> new String(v, StandardCharsets.UTF_8)).orElse("");
                            Thread.yield();
                            String b = get.apply(second).map(v -> new String(v, StandardCharsets.UTF_8)).orElse("");
                            return a.equals(b);
                        });
                        reads.incrementAndGet();
                        if (!same) {
                            torn.incrementAndGet();
                        }
                    } catch (Exception e) {
                        torn.incrementAndGet();
                    }
                }
            });
            reader.start();
            readers.add(reader);
        }
        for (int i = 0; i < 3_000; i++) {
            Transaction transaction = namespace.begin();
            byte[] value = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
            transaction.put(first, value);
            transaction.put(second, value);
            transaction.commit();
            if (i % 100 == 0) {
                Thread.yield();
            }
        }
        writing.set(false);
        for (Thread reader : readers) {
            reader.join();
        }
        assertThat(reads.get()).as("reads done").isPositive();
        assertThat(torn.get()).as("reads that saw part of a batch").isZero();
    }

    @Test
    void cachedCommittedValuesFollowEveryCommittedChange() throws Exception {
        // A lookup caches the name's absence; the create, the rename of the volume record and the delete that follow
        // must each show at once through new transactions (the cache is updated by the commit, not only filled).
        assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, "y")).isEmpty();
        Transaction create = namespace.begin();
        namespace.putDentry(create, VOLUME_ID, Namespace.ROOT_INODE, "y", 7);
        create.commit();
        assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, "y")).contains(7L);
        assertThat(namespace.volume("vol").getOsdSelectionPolicy()).isEmpty();
        Transaction change = namespace.begin();
        namespace.putVolume(change, volume.toBuilder().setOsdSelectionPolicy("changed").build());
        change.commit();
        assertThat(namespace.volume("vol").getOsdSelectionPolicy()).isEqualTo("changed");
        Transaction delete = namespace.begin();
        namespace.deleteDentry(delete, VOLUME_ID, Namespace.ROOT_INODE, "y");
        delete.commit();
        assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, "y")).isEmpty();
        assertThat(store.get(KvLayout.dentry(VOLUME_ID, Namespace.ROOT_INODE, "y"))).isEmpty();
    }

    @Test
    void theCacheOfCommittedValuesStaysBounded() throws Exception {
        for (int i = 0; i < Namespace.COMMITTED_VALUES_KEPT_MAX + 10; i++) {
            namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, "n" + i);
            assertThat(namespace.committedValuesKept()).isLessThanOrEqualTo(Namespace.COMMITTED_VALUES_KEPT_MAX);
        }
        assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, "d")).isPresent();
    }

    @Test
    void aTransactionSeesItsOwnWritesAndTheStoreOnlyAfterCommit() throws Exception {
        // Reads inside the transaction see pending writes; the store sees none of them until commit.
        Transaction transaction = namespace.begin();
        namespace.putDentry(transaction, VOLUME_ID, Namespace.ROOT_INODE, "x", 42);
        assertThat(namespace.lookup(transaction, VOLUME_ID, Namespace.ROOT_INODE, "x")).contains(42L);
        assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, "x")).isEmpty();
        transaction.commit();
        assertThat(namespace.lookup(namespace.begin(), VOLUME_ID, Namespace.ROOT_INODE, "x")).contains(42L);
        assertThat(namespace.begin().isEmpty()).isTrue();
    }

    @Test
    void resolutionWalksDotEntriesAndChecksSearchPermission() throws Exception {
        // ".." of the root is the root, "d/.." is the root; a 0700 directory of root stops alice (EACCES),
        // a missing name is ENOENT and "name/" of a non-directory ENOTDIR.
        Transaction transaction = namespace.begin();
        assertThat(namespace.resolve(transaction, volume, Caller.root(), "/..").inode()).isEqualTo(Namespace.ROOT_INODE);
        assertThat(namespace.resolve(transaction, volume, Caller.root(), "d/..").inode())
                .isEqualTo(Namespace.ROOT_INODE);
        long d = namespace.resolve(transaction, volume, Caller.root(), "/d/.").inode();
        assertThat(d).isEqualTo(Namespace.ROOT_INODE + 1);
        assertThat(errno(catchThrowableOfType(RpcException.class,
                () -> namespace.resolve(transaction, volume, ALICE, "/d/x")))).isEqualTo(Errno.EACCES);
        assertThat(errno(catchThrowableOfType(RpcException.class,
                () -> namespace.resolve(transaction, volume, Caller.root(), "/d/x")))).isEqualTo(Errno.ENOENT);
        assertThat(errno(catchThrowableOfType(RpcException.class,
                () -> namespace.resolveEntry(transaction, volume, Caller.root(), "/", "remove"))))
                .isEqualTo(Namespace.EBUSY);
        assertThat(Namespace.parentPath("/d/x/")).isEqualTo("/d");
        assertThat(Namespace.parentPath("x")).isEqualTo("/");
    }

    @Test
    void insertingASubdirectoryRaisesTheParentsLinkCountAndInodesCount() throws Exception {
        // The setup's mkdir-like insert: the root has nlink 3, the counter moved past the new inode.
        Transaction transaction = namespace.begin();
        assertThat(namespace.loadInode(transaction, VOLUME_ID, Namespace.ROOT_INODE).stat().getNlink()).isEqualTo(3);
        assertThat(namespace.allocatedInodes(VOLUME_ID)).isEqualTo(2);
        assertThat(namespace.hasEntries(VOLUME_ID, Namespace.ROOT_INODE)).isTrue();
        assertThat(namespace.hasEntries(VOLUME_ID, Namespace.ROOT_INODE + 1)).isFalse();
    }

    @Test
    void statsOfAListingsPageAreTheInodesAsTheTransactionSeesThem() throws Exception {
        // loadStats answers what loadInode answers, in the order asked: committed inodes from the cache or the store,
        // the transaction's own (uncommitted) write of an inode instead of the stored one, and an internal error for
        // an inode that is missing (a dentry pointing nowhere; also when the cache holds its absence) or that the
        // transaction deleted.
        Transaction create = namespace.begin();
        List<Long> inodes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long inode = namespace.allocateInode(create, VOLUME_ID);
            namespace.putInode(create, VOLUME_ID, new InodeRecord(Namespace.newStat(context, inode,
                    FileModes.S_IFREG | 0600 + i, 1, 0, volume).setSizeBytes(i).build(), null, null, 2, 0));
            inodes.add(inode);
        }
        create.commit();
        Transaction transaction = namespace.begin();
        InodeRecord changed = namespace.loadInode(transaction, VOLUME_ID, inodes.get(3));
        namespace.putInode(transaction, VOLUME_ID,
                changed.withStat(changed.stat().toBuilder().setSizeBytes(99).build()));
        List<Long> asked = List.of(inodes.get(4), inodes.get(0), inodes.get(3), Namespace.ROOT_INODE);
        assertThat(namespace.loadStats(transaction, VOLUME_ID, asked)).extracting(Stat::getSizeBytes)
                .containsExactly(4L, 0L, 99L, 0L);
        assertThat(namespace.loadStats(namespace.begin(), VOLUME_ID, asked)).extracting(Stat::getInode)
                .containsExactlyElementsOf(asked);
        assertThat(namespace.loadStats(namespace.begin(), VOLUME_ID, asked).get(2))
                .isEqualTo(namespace.loadInode(namespace.begin(), VOLUME_ID, inodes.get(3)).stat());
        assertThat(namespace.loadStats(transaction, VOLUME_ID, List.of())).isEmpty();
        assertThat(catchThrowableOfType(RpcException.class, () -> namespace.loadStats(namespace.begin(), VOLUME_ID,
                List.of(inodes.get(1), 4242L))).getMessage()).contains("missing inode 4242");
        assertThat(catchThrowableOfType(RpcException.class, () -> namespace.inodeOf(namespace.begin(), VOLUME_ID,
                4343L)).getMessage()).contains("no longer exists"); // its absence is cached now
        assertThat(catchThrowableOfType(RpcException.class, () -> namespace.loadStats(namespace.begin(), VOLUME_ID,
                List.of(inodes.get(1), 4343L))).getMessage()).contains("missing inode 4343");
        namespace.deleteInode(transaction, VOLUME_ID, inodes.get(2));
        assertThat(catchThrowableOfType(RpcException.class, () -> namespace.loadStats(transaction, VOLUME_ID,
                List.of(inodes.get(2)))).getMessage()).contains("missing inode " + inodes.get(2));
    }

    @Test
    void statsOfManyNeighbouringInodesAreReadInOnePassAndStillAnswerExactlyTheInodesAsked() throws Exception {
        // Above INODE_SCAN_KEYS_MIN keys whose inodes lie close together loadStats reads the span with an iterator
        // (committedInodes): the span's other inodes (every third one here, say another directory's files) must not
        // leak into the answer, an inode asked twice (two names of one hard-linked file) is answered twice, the order
        // asked is kept, a missing inode inside the span is still an internal error, and a sparse set (the
        // multi-get) answers the same.
        Transaction create = namespace.begin();
        List<Long> inodes = new ArrayList<>();
        for (int i = 0; i < 3 * Namespace.INODE_SCAN_KEYS_MIN; i++) {
            long inode = namespace.allocateInode(create, VOLUME_ID);
            namespace.putInode(create, VOLUME_ID, new InodeRecord(Namespace.newStat(context, inode,
                    FileModes.S_IFREG | 0600, 1, 0, volume).setSizeBytes(1000 + i).build(), null, null, 2, 0));
            inodes.add(inode);
        }
        create.commit();
        List<Long> asked = new ArrayList<>();
        for (int i = inodes.size() - 1; i >= 0; i--) {
            if (i % 3 != 1) {
                asked.add(inodes.get(i));
            }
        }
        asked.add(inodes.get(5)); // a second name of the same file
        assertThat(asked.size()).isGreaterThanOrEqualTo(Namespace.INODE_SCAN_KEYS_MIN);
        assertThat(namespace.loadStats(namespace.begin(), VOLUME_ID, asked)).extracting(Stat::getInode)
                .containsExactlyElementsOf(asked);
        assertThat(namespace.loadStats(namespace.begin(), VOLUME_ID, asked)).extracting(Stat::getSizeBytes)
                .containsExactlyElementsOf(asked.stream().map(inode -> 1000 + inodes.indexOf(inode)).map(Long::valueOf)
                        .toList());
        List<Long> sparse = new ArrayList<>(asked.subList(0, Namespace.INODE_SCAN_KEYS_MIN));
        sparse.add(Namespace.ROOT_INODE);
        sparse.add(inodes.get(0) + 1_000_000); // no such inode, far away: the multi-get's answer
        assertThat(catchThrowableOfType(RpcException.class, () -> namespace.loadStats(namespace.begin(), VOLUME_ID,
                sparse)).getMessage()).contains("missing inode " + (inodes.get(0) + 1_000_000));
        sparse.remove(sparse.size() - 1);
        assertThat(namespace.loadStats(namespace.begin(), VOLUME_ID, sparse)).extracting(Stat::getInode)
                .containsExactlyElementsOf(sparse);
        Transaction delete = namespace.begin();
        namespace.deleteInode(delete, VOLUME_ID, inodes.get(6));
        delete.commit();
        assertThat(catchThrowableOfType(RpcException.class, () -> namespace.loadStats(namespace.begin(), VOLUME_ID,
                asked)).getMessage()).contains("missing inode " + inodes.get(6));
    }

    @Test
    void dentriesPageInByteOrderOfNames() {
        // Entries come sorted by name; skip and count cut pages without overlap.
        Transaction transaction = namespace.begin();
        for (String name : List.of("b", "a", "c", "B")) {
            namespace.putDentry(transaction, VOLUME_ID, Namespace.ROOT_INODE + 1, name, 100 + name.charAt(0));
        }
        transaction.commit();
        assertThat(namespace.dentries(VOLUME_ID, Namespace.ROOT_INODE + 1, 0, 10))
                .extracting(Namespace.Dentry::name).containsExactly("B", "a", "b", "c");
        assertThat(namespace.dentries(VOLUME_ID, Namespace.ROOT_INODE + 1, 1, 2))
                .containsExactly(new Namespace.Dentry("a", 100 + 'a'), new Namespace.Dentry("b", 100 + 'b'));
        assertThat(namespace.dentries(VOLUME_ID, Namespace.ROOT_INODE + 1, 4, 10)).isEmpty();
    }

    @Test
    void deletingAVolumeRemovesEveryRecordOfIt() throws Exception {
        // Record, name, counter, inodes, entries and xattrs go; nothing of the volume is left in the store.
        Transaction transaction = namespace.begin();
        namespace.setXattr(transaction, VOLUME_ID, namespace.loadInode(transaction, VOLUME_ID, Namespace.ROOT_INODE),
                "user.a", new byte[] {1}, context);
        transaction.commit();
        transaction = namespace.begin();
        namespace.deleteVolumeRecords(transaction, volume);
        transaction.commit();
        assertThat(namespace.listVolumes()).isEmpty();
        assertThat(store.scan(org.xtreemfs.foundation.kv.KeyRange.all(), 10)).isEmpty();
    }

    @Test
    void anInodeWrittenBeforeTheXattrMarkIsScannedWhenDeleted() throws Exception {
        // Migration: a record without the trailing mark byte (an older build's) may have xattrs; deleting it finds them.
        Transaction transaction = namespace.begin();
        InodeRecord root = namespace.loadInode(transaction, VOLUME_ID, Namespace.ROOT_INODE);
        long inode = namespace.allocateInode(transaction, VOLUME_ID);
        InodeRecord file = new InodeRecord(Namespace.newStat(context, inode, FileModes.S_IFREG | 0644, 1, 0, volume)
                .build(), null, null, 0, 0);
        namespace.insertEntry(transaction, VOLUME_ID, new Namespace.Entry(root, "old", null), file, context);
        transaction.commit();
        byte[] encoded = file.encode();
        transaction = namespace.begin();
        transaction.put(KvLayout.inode(VOLUME_ID, inode), Arrays.copyOf(encoded, encoded.length - 1));
        transaction.put(KvLayout.xattr(VOLUME_ID, inode, "user.a"), new byte[] {1});
        transaction.commit();
        transaction = namespace.begin();
        namespace.deleteInode(transaction, VOLUME_ID, inode);
        transaction.commit();
        assertThat(namespace.xattrNames(VOLUME_ID, inode)).isEmpty();
    }
}
