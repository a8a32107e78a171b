package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.BOB;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.SetattrField;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.AtimePolicy;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/**
 * The POSIX metadata rules of issue 3, one test per rule: ctime on every metadata change, directory link
 * counts, setuid/setgid clearing on writes by others and on chown, and the atime policies.
 */
class PosixMetadataTest {
    private static final int MODE = SetattrField.SETATTR_MODE_VALUE;
    private static final int UID = SetattrField.SETATTR_UID_VALUE;
    private static final int GID = SetattrField.SETATTR_GID_VALUE;
    private static final int SIZE = SetattrField.SETATTR_SIZE_VALUE;
    private static final int TIMES_NOW = SetattrField.SETATTR_ATIME_NOW_VALUE | SetattrField.SETATTR_MTIME_NOW_VALUE;
    private static final int RDONLY = 0;

    private NamespaceFixture fixture = new NamespaceFixture();
    private Namespace namespace = fixture.namespace;

    @BeforeEach
    void createVolume() throws Exception {
        fixture.createVolume("vol");
    }

    private void useAtimePolicy(AtimePolicy policy) throws Exception {
        fixture = new NamespaceFixture(new InMemoryKvStore(), policy);
        namespace = fixture.namespace;
        fixture.createVolume("vol");
    }

    private OperationContext as(Caller caller) {
        return fixture.as(caller);
    }

    private Stat stat(String path) throws Exception {
        return GetattrOp.getattr(namespace, as(ROOT), "vol", path);
    }

    private OpenResult file(Caller owner, String path, int mode) throws Exception {
        return fixture.open(as(owner), "vol", path, NamespaceFixture.CREAT | NamespaceFixture.WRONLY, mode);
    }

    private Stat setMode(Caller caller, String path, int mode) throws Exception {
        return SetattrOp.setattr(namespace, as(caller), "vol", path, Stat.newBuilder().setMode(mode).build(), MODE);
    }

    /** Runs the change and asserts that the path's ctime advanced (the fixture's clock moves 1 s a call). */
    private void assertCtimeAdvances(String what, String path, ThrowingRunnable change) throws Exception {
        long before = stat(path).getCtimeNs();
        change.run();
        assertThat(stat(path).getCtimeNs()).as("ctime after " + what).isGreaterThan(before);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void everyMetadataChangeAdvancesCtime() throws Exception {
        // chmod, chown, link, unlink of another link, rename, truncate, utimens, xattrs and a reported
        // write all stamp the inode's ctime; a plain open or getattr does not.
        OpenResult created = file(ALICE, "/f", 0644);
        assertCtimeAdvances("chmod", "/f", () -> setMode(ALICE, "/f", 0600));
        assertCtimeAdvances("chown", "/f", () -> SetattrOp.setattr(namespace, as(ROOT), "vol", "/f",
                Stat.newBuilder().setUid(BOB.uid()).build(), UID));
        assertCtimeAdvances("link", "/f", () -> LinkOp.link(namespace, as(ROOT), "vol", "/f", "/f2"));
        assertCtimeAdvances("unlink of the other link", "/f", () -> UnlinkOp.unlink(namespace, as(ROOT), "vol", "/f2"));
        long beforeRename = stat("/f").getCtimeNs();
        RenameOp.rename(namespace, as(ROOT), "vol", "/f", "/g", 0, "");
        assertThat(stat("/g").getCtimeNs()).as("ctime of the renamed inode").isGreaterThan(beforeRename);
        assertCtimeAdvances("truncate", "/g", () -> SetattrOp.setattr(namespace, as(ROOT), "vol", "/g",
                Stat.newBuilder().setSizeBytes(10).build(), SIZE));
        assertCtimeAdvances("utimens now", "/g", () -> SetattrOp.setattr(namespace, as(ROOT), "vol", "/g",
                Stat.getDefaultInstance(), TIMES_NOW));
        assertCtimeAdvances("setxattr", "/g", () -> SetxattrOp.setxattr(namespace, as(ROOT), "vol", "/g", "user.k",
                new byte[] {1}, 0));
        assertCtimeAdvances("removexattr", "/g", () -> RemovexattrOp.removexattr(namespace, as(ROOT), "vol", "/g",
                "user.k"));
        long inode = created.record().inode();
        assertCtimeAdvances("a write that keeps the size (close)", "/g",
                () -> UpdateFileSizeOp.updateFileSize(namespace, as(ROOT),
                created.volumeId(), inode, 10, stat("/g").getTruncateEpoch(), true));
        long ctime = stat("/g").getCtimeNs();
        fixture.open(as(ROOT), "vol", "/g", RDONLY, 0);
        assertThat(stat("/g").getCtimeNs()).as("open for reading leaves ctime").isEqualTo(ctime);
    }

    @Test
    void sizeReportsOfWritesStampMtimeAndCtimeUnlessStale() throws Exception {
        // fsync/flush reports (close_file=false) of an in-place overwrite keep the size but are writes;
        // a report under a truncate epoch older than the newest issued one is ignored entirely.
        OpenResult created = file(ROOT, "/f", 0644);
        long inode = created.record().inode();
        UpdateFileSizeOp.updateFileSize(namespace, as(ROOT), created.volumeId(), inode, 100, 0, false);
        Stat before = stat("/f");
        assertThat(UpdateFileSizeOp.updateFileSize(namespace, as(ROOT), created.volumeId(), inode, 100, 0,
                false)).isFalse();
        Stat overwritten = stat("/f");
        assertThat(overwritten.getSizeBytes()).isEqualTo(100);
        assertThat(overwritten.getMtimeNs()).isGreaterThan(before.getMtimeNs());
        assertThat(overwritten.getCtimeNs()).isGreaterThan(before.getCtimeNs());
        FtruncateOp.beginTruncate(namespace, created.volumeId(), inode);
        assertThat(UpdateFileSizeOp.updateFileSize(namespace, as(ROOT), created.volumeId(), inode, 100, 0,
                false)).isFalse();
        assertThat(stat("/f").getMtimeNs()).as("stale report").isEqualTo(overwritten.getMtimeNs());
    }

    @Test
    void directoryLinkCountIsTwoPlusSubdirectories() throws Exception {
        // mkdir/rmdir, renames across parents (both parents change), replacing an empty directory and
        // RENAME_EXCHANGE of a directory with a file keep nlink = 2 + subdirectories everywhere.
        MkdirOp.mkdir(namespace, as(ROOT), "vol", "/a", 0755);
        MkdirOp.mkdir(namespace, as(ROOT), "vol", "/b", 0755);
        MkdirOp.mkdir(namespace, as(ROOT), "vol", "/a/x", 0755);
        MkdirOp.mkdir(namespace, as(ROOT), "vol", "/a/y", 0755);
        file(ROOT, "/a/file", 0644);
        assertThat(stat("/").getNlink()).isEqualTo(4);
        assertThat(stat("/a").getNlink()).isEqualTo(4);
        assertThat(stat("/b").getNlink()).isEqualTo(2);
        RenameOp.rename(namespace, as(ROOT), "vol", "/a/x", "/b/x", 0, "");
        assertThat(stat("/a").getNlink()).isEqualTo(3);
        assertThat(stat("/b").getNlink()).isEqualTo(3);
        MkdirOp.mkdir(namespace, as(ROOT), "vol", "/b/empty", 0755);
        RenameOp.rename(namespace, as(ROOT), "vol", "/a/y", "/b/empty", 0, "");
        assertThat(stat("/a").getNlink()).as("source parent lost y").isEqualTo(2);
        assertThat(stat("/b").getNlink()).as("target parent: x and y (empty was replaced)").isEqualTo(4);
        RenameOp.rename(namespace, as(ROOT), "vol", "/b/x", "/a/file", RenameOp.RENAME_EXCHANGE, "");
        assertThat(stat("/a").getNlink()).as("a gained directory x by exchange").isEqualTo(3);
        assertThat(stat("/b").getNlink()).as("b got a file for x").isEqualTo(3);
        assertThat(stat("/a/file").getNlink()).isEqualTo(2);
        RmdirOp.rmdir(namespace, as(ROOT), "vol", "/a/file");
        assertThat(stat("/a").getNlink()).isEqualTo(2);
        assertThat(stat("/").getNlink()).isEqualTo(4);
    }

    @Test
    void othersWithWriteAccessMayOnlyClearSetuidAndSetgid() throws Exception {
        // What the kernel sends through FUSE before a write by a non-owner: a chmod that only clears
        // S_ISUID/S_ISGID. Allowed with write access on regular files; anything else stays EPERM.
        file(ALICE, "/f", 06777);
        expectErrno(Errno.EPERM, () -> setMode(BOB, "/f", 06777));
        expectErrno(Errno.EPERM, () -> setMode(BOB, "/f", 06775));
        expectErrno(Errno.EPERM, () -> setMode(BOB, "/f", 04775));
        Stat cleared = setMode(BOB, "/f", 02777);
        assertThat(cleared.getMode() & 07777).isEqualTo(02777);
        assertThat(cleared.getUid()).isEqualTo(ALICE.uid());
        assertThat(setMode(BOB, "/f", 0777).getMode() & 07777).isEqualTo(0777);
        expectErrno(Errno.EPERM, () -> setMode(BOB, "/f", 0777));
        expectErrno(Errno.EPERM, () -> setMode(BOB, "/f", 04777));
        file(ALICE, "/readonly", 06755);
        expectErrno(Errno.EPERM, () -> setMode(BOB, "/readonly", 0755));
        MkdirOp.mkdir(namespace, as(ALICE), "vol", "/shared", 02777);
        expectErrno(Errno.EPERM, () -> setMode(BOB, "/shared", 0777));
    }

    @Test
    void chownClearsSetuidAndRealSetgidAlsoForRoot() throws Exception {
        // Linux: any chown of a non-directory drops setuid; setgid goes with group-execute, and stays
        // without it (mandatory-locking mark) for root and for an owner in the file's group.
        file(ALICE, "/exec", 06755);
        Stat byRoot = SetattrOp.setattr(namespace, as(ROOT), "vol", "/exec",
                Stat.newBuilder().setUid(BOB.uid()).build(), UID);
        assertThat(byRoot.getMode() & 07777).isEqualTo(0755);
        file(ALICE, "/lockmark", 06745);
        Stat sameOwner = SetattrOp.setattr(namespace, as(ROOT), "vol", "/lockmark",
                Stat.newBuilder().setUid(ALICE.uid()).build(), UID);
        assertThat(sameOwner.getMode() & 07777).as("chown to the same owner still drops setuid").isEqualTo(02745);
        file(ALICE, "/owned", 06745);
        Stat byOwner = SetattrOp.setattr(namespace, as(ALICE), "vol", "/owned", Stat.newBuilder().setGid(50).build(),
                GID);
        assertThat(byOwner.getMode() & 07777).as("owner in the group keeps the locking mark").isEqualTo(02745);
        SetattrOp.setattr(namespace, as(ROOT), "vol", "/owned", Stat.newBuilder().setGid(77).build(), GID);
        setMode(ROOT, "/owned", 06745);
        Stat notInGroup = SetattrOp.setattr(namespace, as(ALICE), "vol", "/owned",
                Stat.newBuilder().setGid(50).build(), GID);
        assertThat(notInGroup.getMode() & 07777).as("owner outside the old group loses setgid").isEqualTo(0745);
        MkdirOp.mkdir(namespace, as(ALICE), "vol", "/dir", 06755);
        Stat directory = SetattrOp.setattr(namespace, as(ROOT), "vol", "/dir",
                Stat.newBuilder().setUid(BOB.uid()).build(), UID);
        assertThat(directory.getMode() & 07777).as("directories keep their bits").isEqualTo(06755);
    }

    @Test
    void setgidDirectoryGroupAndBitAreInherited() throws Exception {
        // New entries take the setgid directory's group; only subdirectories inherit the setgid bit.
        MkdirOp.mkdir(namespace, as(ROOT), "vol", "/shared", 02777);
        SetattrOp.setattr(namespace, as(ROOT), "vol", "/shared", Stat.newBuilder().setGid(50).build(), GID);
        Stat created = file(BOB, "/shared/f", 0644).record().stat();
        assertThat(created.getGid()).isEqualTo(50);
        assertThat(created.getMode() & FileModes.S_ISGID).isZero();
        Stat sub = MkdirOp.mkdir(namespace, as(BOB), "vol", "/shared/sub", 0755);
        assertThat(sub.getGid()).isEqualTo(50);
        assertThat(sub.getMode() & 07777).isEqualTo(02755);
        Stat deeper = MkdirOp.mkdir(namespace, as(BOB), "vol", "/shared/sub/deeper", 0700);
        assertThat(deeper.getGid()).isEqualTo(50);
        assertThat(deeper.getMode() & 07777).isEqualTo(02700);
        Stat outside = MkdirOp.mkdir(namespace, as(BOB), "vol", "/plain", 0755);
        assertThat(outside.getGid()).isEqualTo(BOB.gid());
    }

    @Test
    void relatimeUpdatesAtimeOnlyWhenStaleOrOlderThanADay() throws Exception {
        // A new file has atime == mtime, so the first open for reading updates it; a second one does
        // not; a reported write (mtime) or 24 h make the next open update it again. ctime never moves.
        OpenResult created = file(ROOT, "/f", 0644);
        long createdAtime = stat("/f").getAtimeNs();
        fixture.open(as(ROOT), "vol", "/f", RDONLY, 0);
        Stat afterFirst = stat("/f");
        assertThat(afterFirst.getAtimeNs()).isGreaterThan(createdAtime);
        assertThat(afterFirst.getCtimeNs()).isEqualTo(created.record().stat().getCtimeNs());
        fixture.open(as(ROOT), "vol", "/f", NamespaceFixture.RDWR, 0);
        assertThat(stat("/f").getAtimeNs()).as("second open within 24 h").isEqualTo(afterFirst.getAtimeNs());
        fixture.open(as(ROOT), "vol", "/f", NamespaceFixture.WRONLY, 0);
        assertThat(stat("/f").getAtimeNs()).as("open for writing").isEqualTo(afterFirst.getAtimeNs());
        UpdateFileSizeOp.updateFileSize(namespace, as(ROOT), created.volumeId(), created.record().inode(), 5, 0, true);
        fixture.open(as(ROOT), "vol", "/f", RDONLY, 0);
        long afterWrite = stat("/f").getAtimeNs();
        assertThat(afterWrite).as("first open after a write").isGreaterThan(afterFirst.getAtimeNs());
        fixture.nowMs += AtimePolicy.RELATIME_MAX_AGE_NS / 1_000_000L;
        fixture.open(as(ROOT), "vol", "/f", RDONLY, 0);
        assertThat(stat("/f").getAtimeNs()).as("open a day later").isGreaterThan(afterWrite);
    }

    @Test
    void relatimeAppliesToDirectoryListings() throws Exception {
        // readdir from offset 0 is a directory's access; later pages are not.
        MkdirOp.mkdir(namespace, as(ROOT), "vol", "/d", 0755);
        file(ROOT, "/d/f", 0644);
        Stat before = stat("/d");
        ReaddirOp.readdir(namespace, as(ROOT), "vol", "/d", 0, 0, false);
        Stat listed = stat("/d");
        assertThat(listed.getAtimeNs()).isGreaterThan(before.getAtimeNs());
        assertThat(listed.getCtimeNs()).isEqualTo(before.getCtimeNs());
        ReaddirOp.readdir(namespace, as(ROOT), "vol", "/d", 0, 0, false);
        assertThat(stat("/d").getAtimeNs()).isEqualTo(listed.getAtimeNs());
    }

    @Test
    void noatimeNeverAndStrictatimeAlwaysUpdate() throws Exception {
        useAtimePolicy(AtimePolicy.NOATIME);
        file(ROOT, "/f", 0644);
        long atime = stat("/f").getAtimeNs();
        fixture.open(as(ROOT), "vol", "/f", RDONLY, 0);
        assertThat(stat("/f").getAtimeNs()).isEqualTo(atime);
        useAtimePolicy(AtimePolicy.STRICTATIME);
        file(ROOT, "/f", 0644);
        fixture.open(as(ROOT), "vol", "/f", RDONLY, 0);
        long first = stat("/f").getAtimeNs();
        fixture.open(as(ROOT), "vol", "/f", RDONLY, 0);
        assertThat(stat("/f").getAtimeNs()).isGreaterThan(first);
    }

    @Test
    void atimeRuleMatchesLinuxRelatime() {
        long day = AtimePolicy.RELATIME_MAX_AGE_NS;
        assertThat(AtimePolicy.RELATIME.updates(10, 10, 5, 20)).as("atime == mtime").isTrue();
        assertThat(AtimePolicy.RELATIME.updates(10, 5, 10, 20)).as("atime == ctime").isTrue();
        assertThat(AtimePolicy.RELATIME.updates(10, 5, 5, 20)).as("newer than both, fresh").isFalse();
        assertThat(AtimePolicy.RELATIME.updates(10, 5, 5, 10 + day)).as("a day old").isTrue();
        assertThat(AtimePolicy.RELATIME.updates(10, 5, 5, 9 + day)).as("just under a day").isFalse();
        assertThat(AtimePolicy.NOATIME.updates(10, 10, 10, 10 + day)).isFalse();
        assertThat(AtimePolicy.STRICTATIME.updates(10, 5, 5, 11)).isTrue();
    }
}
