package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.ReaddirResponse;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

class NamespaceTest {
    static final int CREAT = OpenFlag.O_CREAT_FLAG_VALUE;
    static final int EXCL = OpenFlag.O_EXCL_FLAG_VALUE;
    static final int TRUNC = OpenFlag.O_TRUNC_FLAG_VALUE;
    static final int WRONLY = OpenFlag.O_WRONLY_FLAG_VALUE;
    static final int RDWR = OpenFlag.O_RDWR_FLAG_VALUE;
    static final int APPEND = OpenFlag.O_APPEND_FLAG_VALUE;

    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;

    @BeforeEach
    void createVolume() throws Exception {
        fixture.createVolume("vol");
    }

    private OperationContext root() {
        return fixture.as(ROOT);
    }

    private Stat stat(String path) throws Exception {
        return GetattrOp.getattr(namespace, root(), "vol", path);
    }

    private OpenResult create(String path) throws Exception {
        return OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", path, CREAT | WRONLY, 0644);
    }

    @Test
    void mkdirCreatesDirectoryAndUpdatesParent() throws Exception {
        // mkdir gives nlink 2, raises the parent's nlink and its mtime/ctime.
        Stat rootBefore = stat("/");
        Stat created = MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755);
        assertThat(created.getMode()).isEqualTo(FileModes.S_IFDIR | 0755);
        assertThat(created.getNlink()).isEqualTo(2);
        Stat rootAfter = stat("/");
        assertThat(rootAfter.getNlink()).isEqualTo(3);
        assertThat(rootAfter.getMtimeNs()).isGreaterThan(rootBefore.getMtimeNs());
        assertThat(rootAfter.getCtimeNs()).isGreaterThan(rootBefore.getCtimeNs());
        assertThat(stat("/a")).isEqualTo(created);
        assertThat(stat("/a/.")).isEqualTo(created);
        assertThat(stat("/a/..").getInode()).isEqualTo(Namespace.ROOT_INODE);
    }

    @Test
    void mkdirErrors() throws Exception {
        // Existing names are EEXIST, missing parents ENOENT, file parents ENOTDIR, long names ENAMETOOLONG.
        MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755);
        create("/f");
        expectErrno(Errno.EEXIST, () -> MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755));
        expectErrno(Errno.EEXIST, () -> MkdirOp.mkdir(namespace, root(), "vol", "/f", 0755));
        expectErrno(Errno.EEXIST, () -> MkdirOp.mkdir(namespace, root(), "vol", "/", 0755));
        expectErrno(Errno.ENOENT, () -> MkdirOp.mkdir(namespace, root(), "vol", "/missing/b", 0755));
        expectErrno(Errno.ENOTDIR, () -> MkdirOp.mkdir(namespace, root(), "vol", "/f/b", 0755));
        expectErrno(Errno.ENAMETOOLONG, () -> MkdirOp.mkdir(namespace, root(), "vol", "/" + "n".repeat(256), 0755));
        MkdirOp.mkdir(namespace, root(), "vol", "/" + "n".repeat(255), 0755);
        expectErrno(Errno.ENAMETOOLONG, () -> GetattrOp.getattr(namespace, root(), "vol", "/a".repeat(2048)));
    }

    @Test
    void rmdirRemovesOnlyEmptyDirectories() throws Exception {
        // rmdir: ENOTEMPTY with entries, ENOTDIR on files, ENOENT when missing; parent nlink drops.
        MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755);
        MkdirOp.mkdir(namespace, root(), "vol", "/a/b", 0755);
        create("/f");
        expectErrno(Errno.ENOTEMPTY, () -> RmdirOp.rmdir(namespace, root(), "vol", "/a"));
        expectErrno(Errno.ENOTDIR, () -> RmdirOp.rmdir(namespace, root(), "vol", "/f"));
        expectErrno(Errno.ENOENT, () -> RmdirOp.rmdir(namespace, root(), "vol", "/zzz"));
        expectErrno(Errno.EINVAL, () -> RmdirOp.rmdir(namespace, root(), "vol", "/a/."));
        assertThat(stat("/a").getNlink()).isEqualTo(3);
        RmdirOp.rmdir(namespace, root(), "vol", "/a/b");
        assertThat(stat("/a").getNlink()).isEqualTo(2);
        RmdirOp.rmdir(namespace, root(), "vol", "/a");
        expectErrno(Errno.ENOENT, () -> stat("/a"));
        assertThat(stat("/").getNlink()).isEqualTo(2);
    }

    @Test
    void createOpenAllocatesLayoutAndHonoursFlags() throws Exception {
        // O_CREAT creates with a layout on width OSDs; O_EXCL on an existing file is EEXIST; no O_CREAT is ENOENT.
        OpenResult created = create("/f");
        assertThat(created.record().isRegularFile()).isTrue();
        assertThat(created.record().xlocs().getReplicas(0).getOsdUuidsCount()).isEqualTo(1);
        assertThat(created.accessMode()).isEqualTo(AccessMode.ACCESS_MODE_WRITE);
        assertThat(created.record().stat().getMode()).isEqualTo(FileModes.S_IFREG | 0644);
        OpenResult again = OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/f", RDWR | APPEND, 0);
        assertThat(again.record().xlocs()).isEqualTo(created.record().xlocs());
        assertThat(again.accessMode()).isEqualTo(AccessMode.ACCESS_MODE_READ_WRITE);
        expectErrno(Errno.EEXIST, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/f", CREAT | EXCL | WRONLY, 0644));
        expectErrno(Errno.ENOENT, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/g", WRONLY, 0644));
        expectErrno(Errno.ENOTDIR, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/f/x", CREAT | WRONLY, 0644));
        expectErrno(Errno.ENOTDIR, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/f/", RDWR, 0644));
        expectErrno(Errno.EISDIR, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/new/", CREAT | RDWR, 0644));
        assertThat(OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/f", 0, 0).accessMode()).isEqualTo(AccessMode.ACCESS_MODE_READ);
    }

    @Test
    void openTruncSetsSizeZeroUnderNewEpoch() throws Exception {
        // O_TRUNC empties the file and bumps the truncate epoch so stale size updates are ignored.
        OpenResult created = create("/f");
        UpdateFileSizeOp.updateFileSize(namespace, root(), created.volumeId(), created.record().inode(), 5000, 0, true);
        assertThat(stat("/f").getSizeBytes()).isEqualTo(5000);
        OpenResult truncated = OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/f", WRONLY | TRUNC, 0);
        assertThat(truncated.record().stat().getSizeBytes()).isZero();
        assertThat(truncated.record().stat().getTruncateEpoch()).isEqualTo(1);
        UpdateFileSizeOp.updateFileSize(namespace, root(), created.volumeId(), created.record().inode(), 5000, 0, true);
        assertThat(stat("/f").getSizeBytes()).isZero();
    }

    @Test
    void openDirectoryForWritingIsEisdir() throws Exception {
        // Directories open read-only without credentials; for writing they are EISDIR.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/d", WRONLY, 0));
        expectErrno(Errno.EISDIR, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/d", RDWR, 0));
        OpenResult read = OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/d", 0, 0);
        assertThat(read.credentialsNeeded()).isFalse();
        assertThat(read.record().hasLayout()).isFalse();
    }

    @Test
    void openWithoutEnoughOsdsNamesNeededAndAvailable() throws Exception {
        // A width larger than the OSD count fails with ENOSPC naming both numbers, and creates nothing.
        VolumeCreateOp.createVolume(namespace, fixture.ledger, fixture.policies, root(), org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("wide")
                .setDefaultStripingPolicy(org.xtreemfs.interfaces.common.StripingPolicy.newBuilder().setWidth(5))
                .build(), "wide-id");
        String message = expectErrno(Errno.ENOSPC, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "wide", "/f", CREAT | WRONLY, 0644));
        assertThat(message).contains("width of 5").contains("found 3");
        expectErrno(Errno.ENOENT, () -> GetattrOp.getattr(namespace, root(), "wide", "/f"));
    }

    @Test
    void unlinkDropsLinksAndReportsTheDeletedFile() throws Exception {
        // unlink of the last link returns the deleted file's layout; earlier links only lower nlink.
        OpenResult created = create("/f");
        LinkOp.link(namespace, root(), "vol", "/f", "/g");
        assertThat(stat("/f").getNlink()).isEqualTo(2);
        assertThat(UnlinkOp.unlink(namespace, root(), "vol", "/f")).isEmpty();
        assertThat(stat("/g").getNlink()).isEqualTo(1);
        Optional<DeletedFile> deleted = UnlinkOp.unlink(namespace, root(), "vol", "/g");
        assertThat(deleted).isPresent();
        assertThat(deleted.get().xlocs()).isEqualTo(created.record().xlocs());
        assertThat(deleted.get().fileId()).isEqualTo(created.volumeId() + ":" + created.record().inode());
        expectErrno(Errno.ENOENT, () -> namespace.inodeOf(namespace.begin(), created.volumeId(), created.record().inode()));
    }

    @Test
    void unlinkErrors() throws Exception {
        // unlink of a directory is EISDIR, of a missing name ENOENT.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> UnlinkOp.unlink(namespace, root(), "vol", "/d"));
        expectErrno(Errno.ENOENT, () -> UnlinkOp.unlink(namespace, root(), "vol", "/nope"));
        expectErrno(Namespace.EBUSY, () -> UnlinkOp.unlink(namespace, root(), "vol", "/"));
    }

    @Test
    void hardLinkToDirectoryIsEperm() throws Exception {
        // link(2) refuses directories (EPERM) and existing link names (EEXIST).
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        create("/f");
        expectErrno(Errno.EPERM, () -> LinkOp.link(namespace, root(), "vol", "/d", "/d2"));
        expectErrno(Errno.EEXIST, () -> LinkOp.link(namespace, root(), "vol", "/f", "/d"));
        expectErrno(Errno.ENOENT, () -> LinkOp.link(namespace, root(), "vol", "/nope", "/x"));
    }

    @Test
    void symlinkAndReadlink() throws Exception {
        // A symlink stores its target; readlink of a non-link is EINVAL; opening a link is ELOOP.
        Stat link = SymlinkOp.symlink(namespace, root(), "vol", "../some/target", "/l");
        assertThat(link.getMode()).isEqualTo(FileModes.S_IFLNK | 0777);
        assertThat(link.getSizeBytes()).isEqualTo("../some/target".length());
        assertThat(ReadlinkOp.readlink(namespace, root(), "vol", "/l")).isEqualTo("../some/target");
        create("/f");
        expectErrno(Errno.EINVAL, () -> ReadlinkOp.readlink(namespace, root(), "vol", "/f"));
        expectErrno(Errno.EEXIST, () -> SymlinkOp.symlink(namespace, root(), "vol", "x", "/f"));
        expectErrno(Errno.ELOOP, () -> OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/l", 0, 0));
    }

    @Test
    void mknodKeepsSpecialFilesAsMetadata() throws Exception {
        // FIFOs, sockets and device nodes are stored with type and rdev; they get no layout on open.
        Stat fifo = MknodOp.mknod(namespace, root(), "vol", "/fifo", FileModes.S_IFIFO | 0600, 0);
        assertThat(FileModes.type(fifo.getMode())).isEqualTo(FileModes.S_IFIFO);
        Stat device = MknodOp.mknod(namespace, root(), "vol", "/dev", FileModes.S_IFCHR | 0600, 0x0501);
        assertThat(device.getRdev()).isEqualTo(0x0501);
        MknodOp.mknod(namespace, root(), "vol", "/sock", FileModes.S_IFSOCK | 0600, 0);
        assertThat(OpenOp.open(namespace, fixture.ledger, fixture.policies, root(), "vol", "/fifo", 0, 0).credentialsNeeded()).isFalse();
        expectErrno(Errno.EINVAL, () -> MknodOp.mknod(namespace, root(), "vol", "/dir", FileModes.S_IFDIR | 0700, 0));
        expectErrno(Errno.EPERM, () -> MknodOp.mknod(namespace, fixture.as(ALICE), "vol", "/dev2", FileModes.S_IFBLK | 0600, 1));
    }

    @Test
    void readdirPagesInNameOrderWithDotEntries() throws Exception {
        // Entries come as ".", "..", then by name; paging with offset/limit yields each exactly once.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        for (String name : List.of("c", "a", "e", "b", "d")) {
            create("/d/" + name);
        }
        ReaddirResponse all = ReaddirOp.readdir(namespace, root(), "vol", "/d", 0, 0, false);
        assertThat(all.getEntriesList()).extracting(DirectoryEntry::getName)
                .containsExactly(".", "..", "a", "b", "c", "d", "e");
        assertThat(all.getEndOfDirectory()).isTrue();
        assertThat(all.getEntries(1).getStat().getInode()).isEqualTo(Namespace.ROOT_INODE);
        List<String> paged = new ArrayList<>();
        long offset = 0;
        boolean end = false;
        int pages = 0;
        while (!end) {
            ReaddirResponse page = ReaddirOp.readdir(namespace, root(), "vol", "/d", offset, 3, true);
            page.getEntriesList().forEach(entry -> paged.add(entry.getName()));
            assertThat(page.getEntriesList()).allMatch(entry -> !entry.hasStat());
            offset = page.getEntries(page.getEntriesCount() - 1).getNextOffset();
            end = page.getEndOfDirectory();
            pages++;
        }
        assertThat(paged).containsExactly(".", "..", "a", "b", "c", "d", "e");
        assertThat(pages).isEqualTo(3);
        expectErrno(Errno.ENOTDIR, () -> ReaddirOp.readdir(namespace, root(), "vol", "/d/a", 0, 0, false));
    }

    @Test
    void setattrChangesModeTimesAndSizeAndCtime() throws Exception {
        // chmod keeps the type bits; explicit and _NOW times apply; size via truncate bumps the epoch.
        create("/f");
        Stat before = stat("/f");
        Stat chmod = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setMode(0600).build(), 1);
        assertThat(chmod.getMode()).isEqualTo(FileModes.S_IFREG | 0600);
        assertThat(chmod.getCtimeNs()).isGreaterThan(before.getCtimeNs());
        Stat times = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setAtimeNs(11).setMtimeNs(22).build(),
                16 | 32);
        assertThat(times.getAtimeNs()).isEqualTo(11);
        assertThat(times.getMtimeNs()).isEqualTo(22);
        Stat now = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.getDefaultInstance(), 16 | 32 | 128 | 256);
        assertThat(now.getAtimeNs()).isEqualTo(now.getCtimeNs());
        assertThat(now.getMtimeNs()).isEqualTo(now.getCtimeNs());
        Stat truncated = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setSizeBytes(4096).build(), 8);
        assertThat(truncated.getSizeBytes()).isEqualTo(4096);
        assertThat(truncated.getTruncateEpoch()).isEqualTo(1);
        assertThat(truncated.getBlocks()).isEqualTo(8);
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> SetattrOp.setattr(namespace, root(), "vol", "/d",
                Stat.newBuilder().setSizeBytes(1).build(), 8));
        Stat chown = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setUid(5).setGid(6).build(), 2 | 4);
        assertThat(chown.getUid()).isEqualTo(5);
        assertThat(chown.getGid()).isEqualTo(6);
    }

    @Test
    void trailingSlashNeedsADirectory() throws Exception {
        // "file/" is ENOTDIR for lookups and removals; "dir/" works.
        create("/f");
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.ENOTDIR, () -> stat("/f/"));
        expectErrno(Errno.ENOTDIR, () -> UnlinkOp.unlink(namespace, root(), "vol", "/f/"));
        assertThat(stat("/d/").getInode()).isEqualTo(stat("/d").getInode());
        RmdirOp.rmdir(namespace, root(), "vol", "/d/");
    }

    @Test
    void accessChecksRequestedBits() throws Exception {
        // access() reports EACCES for missing bits and ENOENT for missing files.
        create("/f");
        SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setMode(0640).setUid(1000).build(), 1 | 2);
        AccessOp.access(namespace, fixture.as(ALICE), "vol", "/f", 4 | 2);
        expectErrno(Errno.EACCES, () -> AccessOp.access(namespace, fixture.as(ALICE), "vol", "/f", 1));
        expectErrno(Errno.EACCES, () -> AccessOp.access(namespace, fixture.as(NamespaceFixture.BOB), "vol", "/f", 4));
        expectErrno(Errno.ENOENT, () -> AccessOp.access(namespace, fixture.as(ALICE), "vol", "/g", 0));
    }

    @Test
    void statvfsSumsOsdSpace() throws Exception {
        // statvfs reports the OSDs' space in 4 KiB blocks, the volume id and the name limit.
        var statvfs = StatvfsOp.statvfs(namespace, root(), "vol");
        assertThat(statvfs.getBlockSize()).isEqualTo(4096);
        assertThat(statvfs.getTotalBlocks()).isEqualTo(3 * (200L << 30) / 4096);
        assertThat(statvfs.getFreeBlocks()).isEqualTo(3 * (100L << 30) / 4096);
        assertThat(statvfs.getNameMax()).isEqualTo(255);
        assertThat(statvfs.getVolumeId()).isEqualTo(namespace.volume("vol").getId());
        var fallback = StatvfsOp.statvfs(namespace, OperationContext.of(ROOT, 1), "vol");
        assertThat(fallback.getTotalBlocks()).isPositive();
    }
}
