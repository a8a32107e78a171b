package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.TRUNC;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;

/** Every operation reaches the store as exactly one atomic write batch, and reads and failures as none. */
public class OneBatchPerOperationTest {
    /** Counts the store's mutating calls; single puts and deletes would bypass atomicity (OutcomeJournalTest too). */
    public static final class CountingStore implements KvStore {
        final InMemoryKvStore delegate = new InMemoryKvStore();
        public int batches;
        /** The last batch written. */
        public WriteBatch lastBatch;
        int singleWrites;
        /** The range of the last iterator opened, and how many were opened. */
        public KeyRange lastIteratorRange;
        public int iterators;
        /** The keys of the point reads made, in order. */
        public final List<byte[]> gotKeys = new ArrayList<>();

        /** The keys read with {@link KvStore#getExpectedAbsent}, in order. */
        public final List<byte[]> expectedAbsentKeys = new ArrayList<>();

        @Override
        public Optional<byte[]> get(byte[] key) {
            gotKeys.add(key);
            return delegate.get(key);
        }

        @Override
        public Optional<byte[]> getExpectedAbsent(byte[] key) {
            expectedAbsentKeys.add(key);
            return delegate.get(key);
        }

        @Override
        public void put(byte[] key, byte[] value) {
            singleWrites++;
            delegate.put(key, value);
        }

        @Override
        public void delete(byte[] key) {
            singleWrites++;
            delegate.delete(key);
        }

        @Override
        public void write(WriteBatch batch, Durability durability) {
            batches++;
            lastBatch = batch;
            delegate.write(batch, durability);
        }

        @Override
        public KvIterator iterator(KeyRange range) {
            lastIteratorRange = range;
            iterators++;
            return delegate.iterator(range);
        }

        @Override
        public void sync() {
            delegate.sync();
        }

        @Override
        public void flush() {
            delegate.flush();
        }

        @Override
        public void checkpoint(Path directory) {
            delegate.checkpoint(directory);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    private interface Operation {
        void run() throws Exception;
    }

    private final CountingStore store = new CountingStore();
    private final NamespaceFixture fixture = new NamespaceFixture(store);
    private final Namespace namespace = fixture.namespace;

    private void assertOneBatch(Operation operation) throws Exception {
        int before = store.batches;
        operation.run();
        assertThat(store.batches - before).isEqualTo(1);
        assertThat(store.singleWrites).isZero();
    }

    @Test
    void aCreateLooksUpItsNewNameAsExpectedAbsentAndAnOpenAsPresent() throws Exception {
        // Proves the create's look-up of its new name reads the store with getExpectedAbsent (RocksDB's cheaper path
        // for a missing key), and an open without O_CREAT with get, both answering as before (EEXIST, the file).
        fixture.createVolume("vol");
        store.expectedAbsentKeys.clear();
        fixture.open(fixture.as(ROOT), "vol", "/new", CREAT | WRONLY, 0644);
        assertThat(store.expectedAbsentKeys).hasSize(1);
        assertThat(new String(store.expectedAbsentKeys.get(0), java.nio.charset.StandardCharsets.ISO_8859_1))
                .endsWith("new");
        store.expectedAbsentKeys.clear();
        store.gotKeys.clear();
        OpenResult opened = fixture.open(fixture.as(ROOT), "vol", "/new", WRONLY, 0);
        assertThat(store.expectedAbsentKeys).isEmpty();
        assertThat(opened.record().isRegularFile()).isTrue();
        NamespaceFixture.expectErrno(org.xtreemfs.foundation.rpc.Errno.EEXIST, () -> fixture.open(fixture.as(ROOT), "vol",
                "/new", CREAT | NamespaceFixture.EXCL | WRONLY, 0644));
    }

    @Test
    void everyChangingOperationCommitsExactlyOneBatch() throws Exception {
        // Each mutation, however many records it touches, reaches the store as one atomic batch; so do the
        // reservation ledger's records, which join the volume operation's batch.
        assertOneBatch(() -> fixture.createVolume("vol"));
        assertOneBatch(() -> fixture.createVolume(fixture.as(ROOT), Volume.newBuilder().setName("seq")
                .setReservation(sequential(50)).build(), "22222222-0000-0000-0000-000000000002"));
        assertOneBatch(() -> VolumeSetReservationOp.changeReservation(namespace, fixture.ledger, fixture.as(ROOT),
                "seq", sequential(60)));
        assertOneBatch(() -> MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/a", 0755));
        assertOneBatch(() -> MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/b", 0755));
        int beforeCreate = store.batches;
        OpenResult file = fixture.open(fixture.as(ROOT), "vol", "/a/f", CREAT | WRONLY, 0644);
        assertThat(store.batches - beforeCreate).isEqualTo(1);
        assertOneBatch(() -> UpdateFileSizeOp.updateFileSize(namespace, fixture.as(ROOT), file.volumeId(),
                file.record().inode(), 4096, 0, true));
        assertOneBatch(() -> FtruncateOp.beginTruncate(namespace, file.volumeId(), file.record().inode()));
        assertOneBatch(() -> fixture.open(fixture.as(ROOT), "vol", "/a/f", TRUNC | WRONLY, 0));
        assertOneBatch(() -> SetattrOp.setattr(namespace, fixture.as(ROOT), "vol", "/a/f",
                Stat.newBuilder().setMode(0600).build(), 1));
        assertOneBatch(() -> SetxattrOp.setxattr(namespace, fixture.as(ROOT), "vol", "/a/f", "user.x",
                new byte[] {1}, 0));
        assertOneBatch(() -> LinkOp.link(namespace, fixture.as(ROOT), "vol", "/a/f", "/b/g"));
        assertOneBatch(() -> SymlinkOp.symlink(namespace, fixture.as(ROOT), "vol", "a/f", "/l"));
        assertOneBatch(() -> MknodOp.mknod(namespace, fixture.as(ROOT), "vol", "/p", FileModes.S_IFIFO | 0600, 0));
        assertOneBatch(() -> RenameOp.rename(namespace, fixture.as(ROOT), "vol", "/a", "/b/a", 0, ""));
        assertOneBatch(() -> UnlinkOp.unlink(namespace, fixture.as(ROOT), "vol", "/b/g"));
        assertOneBatch(() -> RemovexattrOp.removexattr(namespace, fixture.as(ROOT), "vol", "/b/a/f", "user.x"));
        assertOneBatch(() -> UnlinkOp.unlink(namespace, fixture.as(ROOT), "vol", "/b/a/f"));
        assertOneBatch(() -> RmdirOp.rmdir(namespace, fixture.as(ROOT), "vol", "/b/a"));
        assertOneBatch(() -> fixture.deleteVolume(fixture.as(ROOT), "seq"));
        assertOneBatch(() -> fixture.deleteVolume(fixture.as(ROOT), "vol"));
    }

    @Test
    void readsAndFailuresCommitNothing() throws Exception {
        // Lookups and rejected operations leave the store untouched. The first listing of the new root
        // sets its atime (relatime: atime == mtime), one batch; a second one within 24 h writes nothing.
        fixture.createVolume("vol");
        fixture.createVolume(fixture.as(ROOT), Volume.newBuilder().setName("seq").setReservation(sequential(50))
                .build(), "22222222-0000-0000-0000-000000000002");
        SymlinkOp.symlink(namespace, fixture.as(ROOT), "vol", "t", "/l");
        assertOneBatch(() -> ReaddirOp.readdir(namespace, fixture.as(ROOT), "vol", "/", 0, 0, false));
        int before = store.batches;
        GetattrOp.getattr(namespace, fixture.as(ROOT), "vol", "/");
        ReaddirOp.readdir(namespace, fixture.as(ROOT), "vol", "/", 0, 0, false);
        AccessOp.access(namespace, fixture.as(ROOT), "vol", "/", 7);
        ReadlinkOp.readlink(namespace, fixture.as(ROOT), "vol", "/l");
        ListxattrOp.listxattr(namespace, fixture.as(ROOT), "vol", "/");
        StatvfsOp.statvfs(namespace, fixture.as(ROOT), "vol");
        NamespaceFixture.failure(() -> GetxattrOp.getxattr(namespace, fixture.as(ROOT), "vol", "/", "user.none"));
        NamespaceFixture.failure(() -> RmdirOp.rmdir(namespace, fixture.as(ROOT), "vol", "/missing"));
        NamespaceFixture.failure(() -> MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/", 0755));
        NamespaceFixture.failure(() -> VolumeSetReservationOp.changeReservation(namespace, fixture.ledger,
                fixture.as(ROOT), "seq", sequential(1_000_000)));
        NamespaceFixture.failure(() -> fixture.createVolume(fixture.as(ROOT), Volume.newBuilder().setName("big")
                .setReservation(sequential(1_000_000)).build(), "33333333-0000-0000-0000-000000000003"));
        assertThat(store.batches).isEqualTo(before);
    }

    private static QosReservation sequential(long throughputMibPerSecond) {
        return QosReservation.newBuilder().setType(QosType.SEQUENTIAL).setCapacityBytes(1L << 30)
                .setThroughputBytesPerSecond(throughputMibPerSecond << 20).build();
    }
}
