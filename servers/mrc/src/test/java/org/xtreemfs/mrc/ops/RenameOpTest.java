package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

class RenameOpTest {
    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;

    @BeforeEach
    void createVolume() throws Exception {
        fixture.createVolume("vol");
        fixture.createVolume("other");
    }

    private OperationContext root() {
        return fixture.as(ROOT);
    }

    private Stat stat(String path) throws Exception {
        return GetattrOp.getattr(namespace, root(), "vol", path);
    }

    private OpenResult create(String path) throws Exception {
        return fixture.open(root(), "vol", path, NamespaceFixture.CREAT | NamespaceFixture.WRONLY, 0644);
    }

    private void mkdir(String path) throws Exception {
        MkdirOp.mkdir(namespace, root(), "vol", path, 0755);
    }

    private Optional<DeletedFile> rename(String from, String to) throws Exception {
        return RenameOp.rename(namespace, root(), "vol", from, to, 0, "");
    }

    @Test
    void movesFileBetweenDirectoriesAndStampsTimes() throws Exception {
        // The inode keeps its number; both parents get new mtime/ctime, the inode a new ctime.
        mkdir("/a");
        mkdir("/b");
        long inode = create("/a/f").record().inode();
        Stat before = stat("/a/f");
        Stat parentBefore = stat("/b");
        assertThat(rename("/a/f", "/b/g")).isEmpty();
        expectErrno(Errno.ENOENT, () -> stat("/a/f"));
        Stat after = stat("/b/g");
        assertThat(after.getInode()).isEqualTo(inode);
        assertThat(after.getCtimeNs()).isGreaterThan(before.getCtimeNs());
        assertThat(stat("/b").getMtimeNs()).isGreaterThan(parentBefore.getMtimeNs());
    }

    @Test
    void overwritingLastLinkReturnsDeletedFile() throws Exception {
        // Replacing a file deletes it when it was its last link, otherwise only lowers nlink.
        create("/src");
        OpenResult victim = create("/dst");
        Optional<DeletedFile> deleted = rename("/src", "/dst");
        assertThat(deleted).isPresent();
        assertThat(deleted.get().inode()).isEqualTo(victim.record().inode());
        create("/src2");
        LinkOp.link(namespace, root(), "vol", "/dst", "/dst-link");
        assertThat(rename("/src2", "/dst")).isEmpty();
        assertThat(stat("/dst-link").getNlink()).isEqualTo(1);
    }

    @Test
    void overwritesEmptyDirectoryButNotFullOne() throws Exception {
        // An empty target directory is replaced (parent nlink drops); a non-empty one is ENOTEMPTY.
        mkdir("/a");
        mkdir("/b");
        assertThat(stat("/").getNlink()).isEqualTo(4);
        rename("/a", "/b");
        assertThat(stat("/").getNlink()).isEqualTo(3);
        mkdir("/c");
        mkdir("/b/inner");
        expectErrno(Errno.ENOTEMPTY, () -> rename("/c", "/b"));
    }

    @Test
    void typeMismatchesAreEisdirAndEnotdir() throws Exception {
        // A directory cannot replace a file (ENOTDIR) and a file cannot replace a directory (EISDIR).
        mkdir("/d");
        create("/f");
        expectErrno(Errno.ENOTDIR, () -> rename("/d", "/f"));
        expectErrno(Errno.EISDIR, () -> rename("/f", "/d"));
    }

    @Test
    void directoryCannotMoveUnderItself() throws Exception {
        // Moving /a into /a/b/c (or onto itself as parent) is EINVAL.
        mkdir("/a");
        mkdir("/a/b");
        expectErrno(Errno.EINVAL, () -> rename("/a", "/a/b/c"));
        expectErrno(Errno.EINVAL, () -> rename("/a", "/a/x"));
    }

    @Test
    void movingDirectoryUpdatesLinkCountsAndDotDot() throws Exception {
        // The old parent loses a link, the new one gains one, and ".." follows the move.
        mkdir("/a");
        mkdir("/b");
        mkdir("/a/sub");
        rename("/a/sub", "/b/sub");
        assertThat(stat("/a").getNlink()).isEqualTo(2);
        assertThat(stat("/b").getNlink()).isEqualTo(3);
        assertThat(stat("/b/sub/..").getInode()).isEqualTo(stat("/b").getInode());
    }

    @Test
    void crossVolumeIsExdev() throws Exception {
        // A target in another volume is EXDEV naming both volumes.
        create("/f");
        assertThat(expectErrno(Errno.EXDEV, () -> RenameOp.rename(namespace, root(), "vol", "/f", "/f", 0, "other")))
                .contains("'vol'").contains("'other'");
    }

    @Test
    void noReplaceAndExchange() throws Exception {
        // RENAME_NOREPLACE refuses an existing target; RENAME_EXCHANGE swaps both names atomically.
        long first = create("/x").record().inode();
        mkdir("/y");
        long second = stat("/y").getInode();
        expectErrno(Errno.EEXIST, () -> RenameOp.rename(namespace, root(), "vol", "/x", "/y",
                RenameOp.RENAME_NOREPLACE, ""));
        RenameOp.rename(namespace, root(), "vol", "/x", "/y", RenameOp.RENAME_EXCHANGE, "");
        assertThat(stat("/x").getInode()).isEqualTo(second);
        assertThat(stat("/y").getInode()).isEqualTo(first);
        expectErrno(Errno.ENOENT, () -> RenameOp.rename(namespace, root(), "vol", "/x", "/none",
                RenameOp.RENAME_EXCHANGE, ""));
        expectErrno(Errno.EINVAL, () -> RenameOp.rename(namespace, root(), "vol", "/x", "/y", 3, ""));
    }

    @Test
    void renameOntoOwnHardLinkIsANoOp() throws Exception {
        // Source and target naming the same inode leave both names in place.
        create("/f");
        LinkOp.link(namespace, root(), "vol", "/f", "/g");
        assertThat(rename("/f", "/g")).isEmpty();
        assertThat(stat("/f").getNlink()).isEqualTo(2);
        assertThat(stat("/g").getNlink()).isEqualTo(2);
    }

    @Test
    void missingSourceAndRootAreRejected() throws Exception {
        // A missing source is ENOENT; renaming the root is EBUSY.
        expectErrno(Errno.ENOENT, () -> rename("/nope", "/x"));
        expectErrno(Namespace.EBUSY, () -> rename("/", "/x"));
    }

    @Test
    void failedRenameChangesNothing() throws Exception {
        // A rename that fails leaves the store byte-for-byte unchanged (nothing was committed).
        mkdir("/c");
        mkdir("/b");
        mkdir("/b/inner");
        List<KvEntry> before = fixture.store.scan(KeyRange.all(), 10_000);
        expectErrno(Errno.ENOTEMPTY, () -> rename("/c", "/b"));
        assertThat(fixture.store.scan(KeyRange.all(), 10_000)).isEqualTo(before);
    }
}
