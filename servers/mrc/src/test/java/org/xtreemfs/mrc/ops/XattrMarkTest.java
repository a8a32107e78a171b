package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.ops.OneBatchPerOperationTest.CountingStore;

/**
 * The inode's "may have xattrs" mark ({@link InodeRecord#mayHaveXattrs}): an unlink of a file that never had an xattr
 * scans no xattr keys, and every xattr of a file whose last name goes is still deleted, whichever way the mark got
 * its value (setxattr, removexattr of one or of the last, a hard link's other name, a restart, a record written before
 * the mark existed).
 */
class XattrMarkTest {
    private static final byte XATTR_KEY_KIND = 'X';
    private final CountingStore store = new CountingStore();
    private final NamespaceFixture fixture = new NamespaceFixture(store);
    private final Namespace namespace = fixture.namespace;

    @BeforeEach
    void createVolume() throws Exception {
        fixture.createVolume("vol");
    }

    private void create(String path) throws Exception {
        fixture.open(fixture.as(ALICE), "vol", path, NamespaceFixture.CREAT | NamespaceFixture.WRONLY, 0644);
    }

    private void set(String path, String name) throws Exception {
        SetxattrOp.setxattr(namespace, fixture.as(ALICE), "vol", path, name, "v".getBytes(StandardCharsets.UTF_8), 0);
    }

    /** The store iterators the unlink of {@code path} opened (the xattr scan is its only one). */
    private int iteratorsOfUnlink(String path) throws Exception {
        int before = store.iterators;
        UnlinkOp.unlink(namespace, fixture.as(ALICE), "vol", path);
        return store.iterators - before;
    }

    private static long xattrRecords(KvStore kv) {
        return kv.scan(KeyRange.all(), Integer.MAX_VALUE).stream().map(KvEntry::key)
                .filter(key -> key[0] == XATTR_KEY_KIND).count();
    }

    @Test
    void unlinkOfAFileThatNeverHadAnXattrScansNothing() throws Exception {
        create("/f");
        assertThat(iteratorsOfUnlink("/f")).isZero();
    }

    @Test
    void unlinkOfAFileWithXattrsDeletesThemAll() throws Exception {
        create("/f");
        set("/f", "user.a");
        set("/f", "user.b");
        assertThat(xattrRecords(store.delegate)).isEqualTo(2);
        assertThat(iteratorsOfUnlink("/f")).isEqualTo(1);
        assertThat(xattrRecords(store.delegate)).isZero();
    }

    @Test
    void removingOneOfTwoKeepsTheMarkAndRemovingTheLastClearsIt() throws Exception {
        create("/two");
        set("/two", "user.a");
        set("/two", "user.b");
        RemovexattrOp.removexattr(namespace, fixture.as(ALICE), "vol", "/two", "user.a");
        assertThat(iteratorsOfUnlink("/two")).as("user.b is left: scanned").isEqualTo(1);
        assertThat(xattrRecords(store.delegate)).isZero();

        create("/one");
        set("/one", "user.a");
        RemovexattrOp.removexattr(namespace, fixture.as(ALICE), "vol", "/one", "user.a");
        set("/one", "user.c");
        assertThat(iteratorsOfUnlink("/one")).as("set again after the last was removed").isEqualTo(1);
        assertThat(xattrRecords(store.delegate)).isZero();

        create("/none");
        set("/none", "user.a");
        RemovexattrOp.removexattr(namespace, fixture.as(ALICE), "vol", "/none", "user.a");
        assertThat(iteratorsOfUnlink("/none")).as("its only xattr was removed").isZero();
    }

    @Test
    void anXattrSetThroughAHardLinksOtherNameIsDeletedWithTheLastName() throws Exception {
        create("/f");
        LinkOp.link(namespace, fixture.as(ALICE), "vol", "/f", "/g");
        set("/g", "user.a");
        UnlinkOp.unlink(namespace, fixture.as(ALICE), "vol", "/f");
        assertThat(xattrRecords(store.delegate)).as("the inode lives on as /g").isEqualTo(1);
        UnlinkOp.unlink(namespace, fixture.as(ALICE), "vol", "/g");
        assertThat(xattrRecords(store.delegate)).isZero();
    }

    @Test
    void theMarkSurvivesARestart(@TempDir Path folder) throws Exception {
        try (RocksKvStore rocks = RocksKvStore.open(RocksKvOptions.defaults(folder))) {
            NamespaceFixture before = new NamespaceFixture(rocks);
            before.createVolume("vol");
            before.open(before.as(ALICE), "vol", "/f", NamespaceFixture.CREAT | NamespaceFixture.WRONLY, 0644);
            SetxattrOp.setxattr(before.namespace, before.as(ALICE), "vol", "/f", "user.a", new byte[] {1}, 0);
        }
        try (RocksKvStore rocks = RocksKvStore.open(RocksKvOptions.defaults(folder))) {
            NamespaceFixture after = new NamespaceFixture(rocks);
            UnlinkOp.unlink(after.namespace, after.as(ALICE), "vol", "/f");
            assertThat(xattrRecords(rocks)).isZero();
        }
    }

    @Test
    void aRecordWithoutTheMarkMayHaveXattrs() throws Exception {
        // Records written before the mark existed end after the issued truncate epoch: read as "may have".
        InodeRecord none = fixture.open(fixture.as(ALICE), "vol", "/f", NamespaceFixture.CREAT
                | NamespaceFixture.WRONLY, 0644).record();
        assertThat(none.mayHaveXattrs()).isFalse();
        byte[] encoded = none.encode();
        assertThat(InodeRecord.decode(encoded)).isEqualTo(none);
        assertThat(InodeRecord.decode(none.withMayHaveXattrs(true).encode()).mayHaveXattrs()).isTrue();
        InodeRecord legacy = InodeRecord.decode(Arrays.copyOf(encoded, encoded.length - 1));
        assertThat(legacy.mayHaveXattrs()).isTrue();
        assertThat(legacy.withMayHaveXattrs(false)).isEqualTo(none);
    }
}
