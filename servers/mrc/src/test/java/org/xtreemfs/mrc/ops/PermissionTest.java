package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.BOB;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;

/** The permission model across operations (search, write on parents, sticky directories, chmod/chown). */
class PermissionTest {
    private static final int MODE = 1;
    private static final int UID = 2;
    private static final int GID = 4;
    private static final int SIZE = 8;
    private static final int ATIME = 16;
    private static final int MTIME = 32;
    private static final int ATIME_NOW = 128;
    private static final int MTIME_NOW = 256;

    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;

    @BeforeEach
    void createVolume() throws Exception {
        fixture.createVolume("vol");
    }

    private OperationContext as(Caller caller) {
        return fixture.as(caller);
    }

    /** Creates a file owned by the caller with the given permission bits. */
    private void file(Caller owner, String path, int mode) throws Exception {
        fixture.open(as(owner), "vol", path, NamespaceFixture.CREAT | NamespaceFixture.WRONLY, mode);
    }

    private void dir(Caller owner, String path, int mode) throws Exception {
        MkdirOp.mkdir(namespace, as(owner), "vol", path, mode);
    }

    @Test
    void searchPermissionIsNeededOnEveryComponent() throws Exception {
        // A 0700 directory of root hides its contents from alice (EACCES), not from root.
        dir(ROOT, "/private", 0700);
        file(ROOT, "/private/f", 0644);
        expectErrno(Errno.EACCES, () -> GetattrOp.getattr(namespace, as(ALICE), "vol", "/private/f"));
        expectErrno(Errno.EACCES, () -> fixture.open(as(ALICE), "vol", "/private/f", 0, 0));
        assertThat(GetattrOp.getattr(namespace, as(ROOT), "vol", "/private/f").getUid()).isZero();
        dir(ROOT, "/listonly", 0744);
        expectErrno(Errno.EACCES, () -> GetattrOp.getattr(namespace, as(ALICE), "vol", "/listonly/x"));
    }

    @Test
    void changingEntriesNeedsWriteAndSearchOnTheParent() throws Exception {
        // create, mkdir, unlink, rmdir and rename in a 0755 directory of root are EACCES for alice.
        dir(ROOT, "/ro", 0755);
        file(ROOT, "/ro/f", 0666);
        dir(ROOT, "/ro/d", 0777);
        expectErrno(Errno.EACCES, () -> file(ALICE, "/ro/new", 0644));
        expectErrno(Errno.EACCES, () -> dir(ALICE, "/ro/new", 0755));
        expectErrno(Errno.EACCES, () -> UnlinkOp.unlink(namespace, as(ALICE), "vol", "/ro/f"));
        expectErrno(Errno.EACCES, () -> RmdirOp.rmdir(namespace, as(ALICE), "vol", "/ro/d"));
        expectErrno(Errno.EACCES, () -> RenameOp.rename(namespace, as(ALICE), "vol", "/ro/f", "/f", 0, ""));
        expectErrno(Errno.EACCES, () -> SymlinkOp.symlink(namespace, as(ALICE), "vol", "x", "/ro/l"));
        expectErrno(Errno.EACCES, () -> LinkOp.link(namespace, as(ALICE), "vol", "/ro/f", "/ro/l"));
    }

    @Test
    void stickyDirectoryProtectsOthersEntries() throws Exception {
        // In a 1777 directory alice may not remove or rename bob's file (EPERM); bob and root may.
        dir(ROOT, "/tmp", 01777);
        file(BOB, "/tmp/bobs", 0644);
        file(BOB, "/tmp/bobs2", 0644);
        expectErrno(Errno.EPERM, () -> UnlinkOp.unlink(namespace, as(ALICE), "vol", "/tmp/bobs"));
        expectErrno(Errno.EPERM, () -> RenameOp.rename(namespace, as(ALICE), "vol", "/tmp/bobs", "/tmp/mine", 0, ""));
        file(ALICE, "/tmp/alices", 0644);
        expectErrno(Errno.EPERM, () -> RenameOp.rename(namespace, as(ALICE), "vol", "/tmp/alices", "/tmp/bobs", 0, ""));
        UnlinkOp.unlink(namespace, as(BOB), "vol", "/tmp/bobs");
        UnlinkOp.unlink(namespace, as(ROOT), "vol", "/tmp/bobs2");
    }

    @Test
    void onlyOwnerOrRootMayChmod() throws Exception {
        // chmod by another user is EPERM; the owner may; a non-member owner loses setgid on files.
        file(ALICE, "/f", 0644);
        expectErrno(Errno.EPERM, () -> SetattrOp.setattr(namespace, as(BOB), "vol", "/f",
                Stat.newBuilder().setMode(0777).build(), MODE));
        Stat changed = SetattrOp.setattr(namespace, as(ALICE), "vol", "/f", Stat.newBuilder().setMode(02755).build(),
                MODE);
        assertThat(changed.getMode() & 07777).isEqualTo(02755);
        SetattrOp.setattr(namespace, as(ROOT), "vol", "/f", Stat.newBuilder().setGid(77).build(), GID);
        Stat withoutGroup = SetattrOp.setattr(namespace, as(ALICE), "vol", "/f",
                Stat.newBuilder().setMode(02755).build(), MODE);
        assertThat(withoutGroup.getMode() & 07777).isEqualTo(0755);
    }

    @Test
    void chownRules() throws Exception {
        // Only root changes the owner; the owner may change the group to one of its groups only.
        file(ALICE, "/f", 04755);
        expectErrno(Errno.EPERM, () -> SetattrOp.setattr(namespace, as(ALICE), "vol", "/f",
                Stat.newBuilder().setUid(1001).build(), UID));
        expectErrno(Errno.EPERM, () -> SetattrOp.setattr(namespace, as(ALICE), "vol", "/f",
                Stat.newBuilder().setGid(999).build(), GID));
        expectErrno(Errno.EPERM, () -> SetattrOp.setattr(namespace, as(BOB), "vol", "/f",
                Stat.newBuilder().setGid(1001).build(), GID));
        Stat regrouped = SetattrOp.setattr(namespace, as(ALICE), "vol", "/f", Stat.newBuilder().setGid(50).build(),
                GID);
        assertThat(regrouped.getGid()).isEqualTo(50);
        assertThat(regrouped.getMode() & FileModes.S_ISUID).as("setuid cleared by non-root chown").isZero();
        Stat byRoot = SetattrOp.setattr(namespace, as(ROOT), "vol", "/f",
                Stat.newBuilder().setUid(1001).setGid(1001).build(), UID | GID);
        assertThat(byRoot.getUid()).isEqualTo(1001);
    }

    @Test
    void timesNeedOwnershipOrWriteAccess() throws Exception {
        // Explicit times: owner or root (EPERM); "now": owner, root or write access (EACCES otherwise).
        file(ALICE, "/f", 0646);
        file(ALICE, "/g", 0644);
        expectErrno(Errno.EPERM, () -> SetattrOp.setattr(namespace, as(BOB), "vol", "/f",
                Stat.newBuilder().setMtimeNs(5).build(), MTIME));
        SetattrOp.setattr(namespace, as(BOB), "vol", "/f", Stat.getDefaultInstance(),
                ATIME | MTIME | ATIME_NOW | MTIME_NOW);
        expectErrno(Errno.EACCES, () -> SetattrOp.setattr(namespace, as(BOB), "vol", "/g", Stat.getDefaultInstance(),
                ATIME | MTIME | ATIME_NOW | MTIME_NOW));
        SetattrOp.setattr(namespace, as(ALICE), "vol", "/g", Stat.newBuilder().setMtimeNs(5).build(), MTIME);
    }

    @Test
    void openAndTruncateCheckFileBits() throws Exception {
        // Reading a 0200 file, writing a 0444 file or truncating without write access is EACCES; root bypasses.
        file(ALICE, "/wo", 0200);
        file(ALICE, "/ro", 0444);
        expectErrno(Errno.EACCES, () -> fixture.open(as(ALICE), "vol", "/wo", 0, 0));
        expectErrno(Errno.EACCES, () -> fixture.open(as(ALICE), "vol", "/ro", NamespaceFixture.WRONLY, 0));
        expectErrno(Errno.EACCES, () -> fixture.open(as(ALICE), "vol", "/ro", NamespaceFixture.TRUNC, 0));
        expectErrno(Errno.EACCES, () -> SetattrOp.setattr(namespace, as(ALICE), "vol", "/ro",
                Stat.newBuilder().setSizeBytes(0).build(), SIZE));
        fixture.open(as(ROOT), "vol", "/ro", NamespaceFixture.RDWR, 0);
        fixture.open(as(ROOT), "vol", "/wo", 0, 0);
    }

    @Test
    void groupAndOtherClassesApply() throws Exception {
        // Group bits apply to members (incl. supplementary gids), other bits to the rest.
        file(ROOT, "/g", 0640);
        SetattrOp.setattr(namespace, as(ROOT), "vol", "/g", Stat.newBuilder().setGid(50).build(), GID);
        fixture.open(as(ALICE), "vol", "/g", 0, 0);
        expectErrno(Errno.EACCES, () -> fixture.open(as(BOB), "vol", "/g", 0, 0));
    }

    @Test
    void readdirNeedsReadAndRootNeedsAnXBitToExecute() throws Exception {
        // Listing a 0311 directory is EACCES; root may not "execute" a file without any x bit.
        dir(ROOT, "/noread", 0311);
        expectErrno(Errno.EACCES, () -> ReaddirOp.readdir(namespace, as(ALICE), "vol", "/noread", 0, 0, false));
        file(ROOT, "/data", 0644);
        expectErrno(Errno.EACCES, () -> AccessOp.access(namespace, as(ROOT), "vol", "/data", Permissions.EXECUTE));
        AccessOp.access(namespace, as(ROOT), "vol", "/noread",
                Permissions.READ | Permissions.WRITE | Permissions.EXECUTE);
    }

    @Test
    void setgidDirectoryPassesItsGroupOn() throws Exception {
        // Entries created in a setgid directory take its group; subdirectories inherit setgid.
        dir(ROOT, "/shared", 02777);
        SetattrOp.setattr(namespace, as(ROOT), "vol", "/shared", Stat.newBuilder().setGid(50).build(), GID);
        file(BOB, "/shared/f", 0644);
        assertThat(GetattrOp.getattr(namespace, as(BOB), "vol", "/shared/f").getGid()).isEqualTo(50);
        Stat sub = MkdirOp.mkdir(namespace, as(BOB), "vol", "/shared/sub", 0755);
        assertThat(sub.getGid()).isEqualTo(50);
        assertThat(sub.getMode() & FileModes.S_ISGID).isNotZero();
    }

    @Test
    void movingADirectoryToAnotherParentNeedsWriteOnIt() throws Exception {
        // Renaming a directory across parents rewrites its "..", so it needs write access to it (EACCES).
        dir(ROOT, "/a", 0777);
        dir(ROOT, "/b", 0777);
        dir(ROOT, "/a/locked", 0555);
        expectErrno(Errno.EACCES, () -> RenameOp.rename(namespace, as(ALICE), "vol", "/a/locked", "/b/locked", 0, ""));
        RenameOp.rename(namespace, as(ALICE), "vol", "/a/locked", "/a/renamed", 0, "");
    }
}
