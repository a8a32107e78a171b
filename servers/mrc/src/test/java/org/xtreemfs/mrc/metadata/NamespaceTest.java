package org.xtreemfs.mrc.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.metadata.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.metadata.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.metadata.NamespaceFixture.expectErrno;

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
        return namespace.getattr(root(), "vol", path);
    }

    private OpenResult create(String path) throws Exception {
        return namespace.open(root(), "vol", path, CREAT | WRONLY, 0644);
    }

    @Test
    void mkdirCreatesDirectoryAndUpdatesParent() throws Exception {
        // mkdir gives nlink 2, raises the parent's nlink and its mtime/ctime.
        Stat rootBefore = stat("/");
        Stat created = namespace.mkdir(root(), "vol", "/a", 0755);
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
        namespace.mkdir(root(), "vol", "/a", 0755);
        create("/f");
        expectErrno(Errno.EEXIST, () -> namespace.mkdir(root(), "vol", "/a", 0755));
        expectErrno(Errno.EEXIST, () -> namespace.mkdir(root(), "vol", "/f", 0755));
        expectErrno(Errno.EEXIST, () -> namespace.mkdir(root(), "vol", "/", 0755));
        expectErrno(Errno.ENOENT, () -> namespace.mkdir(root(), "vol", "/missing/b", 0755));
        expectErrno(Errno.ENOTDIR, () -> namespace.mkdir(root(), "vol", "/f/b", 0755));
        expectErrno(Errno.ENAMETOOLONG, () -> namespace.mkdir(root(), "vol", "/" + "n".repeat(256), 0755));
        namespace.mkdir(root(), "vol", "/" + "n".repeat(255), 0755);
        expectErrno(Errno.ENAMETOOLONG, () -> namespace.getattr(root(), "vol", "/a".repeat(2048)));
    }

    @Test
    void rmdirRemovesOnlyEmptyDirectories() throws Exception {
        // rmdir: ENOTEMPTY with entries, ENOTDIR on files, ENOENT when missing; parent nlink drops.
        namespace.mkdir(root(), "vol", "/a", 0755);
        namespace.mkdir(root(), "vol", "/a/b", 0755);
        create("/f");
        expectErrno(Errno.ENOTEMPTY, () -> namespace.rmdir(root(), "vol", "/a"));
        expectErrno(Errno.ENOTDIR, () -> namespace.rmdir(root(), "vol", "/f"));
        expectErrno(Errno.ENOENT, () -> namespace.rmdir(root(), "vol", "/zzz"));
        expectErrno(Errno.EINVAL, () -> namespace.rmdir(root(), "vol", "/a/."));
        assertThat(stat("/a").getNlink()).isEqualTo(3);
        namespace.rmdir(root(), "vol", "/a/b");
        assertThat(stat("/a").getNlink()).isEqualTo(2);
        namespace.rmdir(root(), "vol", "/a");
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
        OpenResult again = namespace.open(root(), "vol", "/f", RDWR | APPEND, 0);
        assertThat(again.record().xlocs()).isEqualTo(created.record().xlocs());
        assertThat(again.accessMode()).isEqualTo(AccessMode.ACCESS_MODE_READ_WRITE);
        expectErrno(Errno.EEXIST, () -> namespace.open(root(), "vol", "/f", CREAT | EXCL | WRONLY, 0644));
        expectErrno(Errno.ENOENT, () -> namespace.open(root(), "vol", "/g", WRONLY, 0644));
        assertThat(namespace.open(root(), "vol", "/f", 0, 0).accessMode()).isEqualTo(AccessMode.ACCESS_MODE_READ);
    }

    @Test
    void openTruncSetsSizeZeroUnderNewEpoch() throws Exception {
        // O_TRUNC empties the file and bumps the truncate epoch so stale size updates are ignored.
        OpenResult created = create("/f");
        namespace.updateFileSize(root(), created.volumeId(), created.record().inode(), 5000, 0, true);
        assertThat(stat("/f").getSizeBytes()).isEqualTo(5000);
        OpenResult truncated = namespace.open(root(), "vol", "/f", WRONLY | TRUNC, 0);
        assertThat(truncated.record().stat().getSizeBytes()).isZero();
        assertThat(truncated.record().stat().getTruncateEpoch()).isEqualTo(1);
        namespace.updateFileSize(root(), created.volumeId(), created.record().inode(), 5000, 0, true);
        assertThat(stat("/f").getSizeBytes()).isZero();
    }

    @Test
    void openDirectoryForWritingIsEisdir() throws Exception {
        // Directories open read-only without credentials; for writing they are EISDIR.
        namespace.mkdir(root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> namespace.open(root(), "vol", "/d", WRONLY, 0));
        expectErrno(Errno.EISDIR, () -> namespace.open(root(), "vol", "/d", RDWR, 0));
        OpenResult read = namespace.open(root(), "vol", "/d", 0, 0);
        assertThat(read.credentialsNeeded()).isFalse();
        assertThat(read.record().hasLayout()).isFalse();
    }

    @Test
    void openWithoutEnoughOsdsNamesNeededAndAvailable() throws Exception {
        // A width larger than the OSD count fails with ENOSPC naming both numbers, and creates nothing.
        namespace.createVolume(root(), org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("wide")
                .setDefaultStripingPolicy(org.xtreemfs.interfaces.common.StripingPolicy.newBuilder().setWidth(5))
                .build(), "wide-id");
        String message = expectErrno(Errno.ENOSPC, () -> namespace.open(root(), "wide", "/f", CREAT | WRONLY, 0644));
        assertThat(message).contains("width of 5").contains("found 3");
        expectErrno(Errno.ENOENT, () -> namespace.getattr(root(), "wide", "/f"));
    }

    @Test
    void unlinkDropsLinksAndReportsTheDeletedFile() throws Exception {
        // unlink of the last link returns the deleted file's layout; earlier links only lower nlink.
        OpenResult created = create("/f");
        namespace.link(root(), "vol", "/f", "/g");
        assertThat(stat("/f").getNlink()).isEqualTo(2);
        assertThat(namespace.unlink(root(), "vol", "/f")).isEmpty();
        assertThat(stat("/g").getNlink()).isEqualTo(1);
        Optional<DeletedFile> deleted = namespace.unlink(root(), "vol", "/g");
        assertThat(deleted).isPresent();
        assertThat(deleted.get().xlocs()).isEqualTo(created.record().xlocs());
        assertThat(deleted.get().fileId()).isEqualTo(created.volumeId() + ":" + created.record().inode());
        expectErrno(Errno.ENOENT, () -> namespace.inodeOf(created.volumeId(), created.record().inode()));
    }

    @Test
    void unlinkErrors() throws Exception {
        // unlink of a directory is EISDIR, of a missing name ENOENT.
        namespace.mkdir(root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> namespace.unlink(root(), "vol", "/d"));
        expectErrno(Errno.ENOENT, () -> namespace.unlink(root(), "vol", "/nope"));
        expectErrno(Namespace.EBUSY, () -> namespace.unlink(root(), "vol", "/"));
    }

    @Test
    void hardLinkToDirectoryIsEperm() throws Exception {
        // link(2) refuses directories (EPERM) and existing link names (EEXIST).
        namespace.mkdir(root(), "vol", "/d", 0755);
        create("/f");
        expectErrno(Errno.EPERM, () -> namespace.link(root(), "vol", "/d", "/d2"));
        expectErrno(Errno.EEXIST, () -> namespace.link(root(), "vol", "/f", "/d"));
        expectErrno(Errno.ENOENT, () -> namespace.link(root(), "vol", "/nope", "/x"));
    }

    @Test
    void symlinkAndReadlink() throws Exception {
        // A symlink stores its target; readlink of a non-link is EINVAL; opening a link is ELOOP.
        Stat link = namespace.symlink(root(), "vol", "../some/target", "/l");
        assertThat(link.getMode()).isEqualTo(FileModes.S_IFLNK | 0777);
        assertThat(link.getSizeBytes()).isEqualTo("../some/target".length());
        assertThat(namespace.readlink(root(), "vol", "/l")).isEqualTo("../some/target");
        create("/f");
        expectErrno(Errno.EINVAL, () -> namespace.readlink(root(), "vol", "/f"));
        expectErrno(Errno.EEXIST, () -> namespace.symlink(root(), "vol", "x", "/f"));
        expectErrno(Errno.ELOOP, () -> namespace.open(root(), "vol", "/l", 0, 0));
    }

    @Test
    void mknodKeepsSpecialFilesAsMetadata() throws Exception {
        // FIFOs, sockets and device nodes are stored with type and rdev; they get no layout on open.
        Stat fifo = namespace.mknod(root(), "vol", "/fifo", FileModes.S_IFIFO | 0600, 0);
        assertThat(FileModes.type(fifo.getMode())).isEqualTo(FileModes.S_IFIFO);
        Stat device = namespace.mknod(root(), "vol", "/dev", FileModes.S_IFCHR | 0600, 0x0501);
        assertThat(device.getRdev()).isEqualTo(0x0501);
        namespace.mknod(root(), "vol", "/sock", FileModes.S_IFSOCK | 0600, 0);
        assertThat(namespace.open(root(), "vol", "/fifo", 0, 0).credentialsNeeded()).isFalse();
        expectErrno(Errno.EINVAL, () -> namespace.mknod(root(), "vol", "/dir", FileModes.S_IFDIR | 0700, 0));
        expectErrno(Errno.EPERM, () -> namespace.mknod(fixture.as(ALICE), "vol", "/dev2", FileModes.S_IFBLK | 0600, 1));
    }

    @Test
    void readdirPagesInNameOrderWithDotEntries() throws Exception {
        // Entries come as ".", "..", then by name; paging with offset/limit yields each exactly once.
        namespace.mkdir(root(), "vol", "/d", 0755);
        for (String name : List.of("c", "a", "e", "b", "d")) {
            create("/d/" + name);
        }
        ReaddirResponse all = namespace.readdir(root(), "vol", "/d", 0, 0, false);
        assertThat(all.getEntriesList()).extracting(DirectoryEntry::getName)
                .containsExactly(".", "..", "a", "b", "c", "d", "e");
        assertThat(all.getEndOfDirectory()).isTrue();
        assertThat(all.getEntries(1).getStat().getInode()).isEqualTo(Namespace.ROOT_INODE);
        List<String> paged = new ArrayList<>();
        long offset = 0;
        boolean end = false;
        int pages = 0;
        while (!end) {
            ReaddirResponse page = namespace.readdir(root(), "vol", "/d", offset, 3, true);
            page.getEntriesList().forEach(entry -> paged.add(entry.getName()));
            assertThat(page.getEntriesList()).allMatch(entry -> !entry.hasStat());
            offset = page.getEntries(page.getEntriesCount() - 1).getNextOffset();
            end = page.getEndOfDirectory();
            pages++;
        }
        assertThat(paged).containsExactly(".", "..", "a", "b", "c", "d", "e");
        assertThat(pages).isEqualTo(3);
        expectErrno(Errno.ENOTDIR, () -> namespace.readdir(root(), "vol", "/d/a", 0, 0, false));
    }

    @Test
    void setattrChangesModeTimesAndSizeAndCtime() throws Exception {
        // chmod keeps the type bits; explicit and _NOW times apply; size via truncate bumps the epoch.
        create("/f");
        Stat before = stat("/f");
        Stat chmod = namespace.setattr(root(), "vol", "/f", Stat.newBuilder().setMode(0600).build(), 1);
        assertThat(chmod.getMode()).isEqualTo(FileModes.S_IFREG | 0600);
        assertThat(chmod.getCtimeNs()).isGreaterThan(before.getCtimeNs());
        Stat times = namespace.setattr(root(), "vol", "/f", Stat.newBuilder().setAtimeNs(11).setMtimeNs(22).build(),
                16 | 32);
        assertThat(times.getAtimeNs()).isEqualTo(11);
        assertThat(times.getMtimeNs()).isEqualTo(22);
        Stat now = namespace.setattr(root(), "vol", "/f", Stat.getDefaultInstance(), 16 | 32 | 128 | 256);
        assertThat(now.getAtimeNs()).isEqualTo(now.getCtimeNs());
        assertThat(now.getMtimeNs()).isEqualTo(now.getCtimeNs());
        Stat truncated = namespace.setattr(root(), "vol", "/f", Stat.newBuilder().setSizeBytes(4096).build(), 8);
        assertThat(truncated.getSizeBytes()).isEqualTo(4096);
        assertThat(truncated.getTruncateEpoch()).isEqualTo(1);
        assertThat(truncated.getBlocks()).isEqualTo(8);
        namespace.mkdir(root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> namespace.setattr(root(), "vol", "/d",
                Stat.newBuilder().setSizeBytes(1).build(), 8));
        Stat chown = namespace.setattr(root(), "vol", "/f", Stat.newBuilder().setUid(5).setGid(6).build(), 2 | 4);
        assertThat(chown.getUid()).isEqualTo(5);
        assertThat(chown.getGid()).isEqualTo(6);
    }

    @Test
    void trailingSlashNeedsADirectory() throws Exception {
        // "file/" is ENOTDIR for lookups and removals; "dir/" works.
        create("/f");
        namespace.mkdir(root(), "vol", "/d", 0755);
        expectErrno(Errno.ENOTDIR, () -> stat("/f/"));
        expectErrno(Errno.ENOTDIR, () -> namespace.unlink(root(), "vol", "/f/"));
        assertThat(stat("/d/").getInode()).isEqualTo(stat("/d").getInode());
        namespace.rmdir(root(), "vol", "/d/");
    }

    @Test
    void accessChecksRequestedBits() throws Exception {
        // access() reports EACCES for missing bits and ENOENT for missing files.
        create("/f");
        namespace.setattr(root(), "vol", "/f", Stat.newBuilder().setMode(0640).setUid(1000).build(), 1 | 2);
        namespace.access(fixture.as(ALICE), "vol", "/f", 4 | 2);
        expectErrno(Errno.EACCES, () -> namespace.access(fixture.as(ALICE), "vol", "/f", 1));
        expectErrno(Errno.EACCES, () -> namespace.access(fixture.as(NamespaceFixture.BOB), "vol", "/f", 4));
        expectErrno(Errno.ENOENT, () -> namespace.access(fixture.as(ALICE), "vol", "/g", 0));
    }

    @Test
    void statvfsSumsOsdSpace() throws Exception {
        // statvfs reports the OSDs' space in 4 KiB blocks, the volume id and the name limit.
        var statvfs = namespace.statvfs(root(), "vol");
        assertThat(statvfs.getBlockSize()).isEqualTo(4096);
        assertThat(statvfs.getTotalBlocks()).isEqualTo(3 * (200L << 30) / 4096);
        assertThat(statvfs.getFreeBlocks()).isEqualTo(3 * (100L << 30) / 4096);
        assertThat(statvfs.getNameMax()).isEqualTo(255);
        assertThat(statvfs.getVolumeId()).isEqualTo(namespace.volume("vol").getId());
        var fallback = namespace.statvfs(OperationContext.of(ROOT, 1), "vol");
        assertThat(fallback.getTotalBlocks()).isPositive();
    }
}
