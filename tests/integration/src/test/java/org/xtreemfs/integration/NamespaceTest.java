package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;

/** Namespace operations end to end through the client library: what a FUSE adapter will rely on. */
class NamespaceTest {
    private static TestCluster cluster;
    private static Client owner;
    private static Client stranger;
    private static Volume volume;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start(3);
        owner = cluster.client(ClientOptions.builder().readdirPageEntries(7)
                .userCredentials(ClientOptions.user("alice", 1000, 1000, List.of())));
        stranger = cluster.client(ClientOptions.builder()
                .userCredentials(ClientOptions.user("mallory", 2000, 2000, List.of())));
        Volumes.create(owner, "names", 3);
        volume = owner.openVolume("names");
    }

    @AfterAll
    static void stopCluster() {
        for (AutoCloseable closeable : new AutoCloseable[] {owner, stranger, cluster}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception ignored) {
                // Best effort at teardown.
            }
        }
    }

    // mkdir, rmdir of a non-empty directory (ENOTEMPTY), of a missing one (ENOENT), a second mkdir (EEXIST),
    // and open of a directory (EISDIR: directories are listed, not opened as files).
    @Test
    void directories() throws Exception {
        volume.mkdir("/d", 0755);
        createFile("/d/f", 10);
        assertErrno(() -> volume.rmdir("/d"), Errno.ENOTEMPTY, "'names/d'");
        assertErrno(() -> volume.mkdir("/d", 0755), Errno.EEXIST, "'names/d'");
        assertErrno(() -> volume.open("/d", OpenFlags.O_RDONLY, 0), Errno.EISDIR, "'names/d'");
        volume.unlink("/d/f");
        volume.rmdir("/d");
        assertErrno(() -> volume.getattr("/d"), Errno.ENOENT, "'names/d'");
    }

    // readdir pages through a large directory (page size 7) and returns every entry exactly once.
    @Test
    void readdirPagesThroughEverything() throws Exception {
        volume.mkdir("/many", 0755);
        for (int index = 0; index < 50; index++) {
            createFile("/many/file" + index, 0);
        }
        List<String> names = volume.readdir("/many").stream().map(DirectoryEntry::getName)
                .filter(name -> !name.equals(".") && !name.equals("..")).toList();
        assertThat(names).hasSize(50).doesNotHaveDuplicates().contains("file0", "file49");
    }

    // rename moves files and empty directories, replaces a file (deleting its objects) and refuses moving a
    // directory under itself (EINVAL), replacing a non-empty directory (ENOTEMPTY) and RENAME_NOREPLACE (EEXIST).
    @Test
    void renameEdgeCases() throws Exception {
        volume.mkdir("/r", 0755);
        createFile("/r/a", 100);
        String replacedFileId = createFile("/r/b", 4 * Volumes.OBJECT_SIZE_BYTES);
        volume.rename("/r/a", "/r/b");
        assertThat(volume.getattr("/r/b").getSizeBytes()).isEqualTo(100);
        assertErrno(() -> volume.getattr("/r/a"), Errno.ENOENT, "'names/r/a'");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (int index = 0; index < 3; index++) {
                assertThat(Volumes.storedObjects(cluster.osdDataFolder(index), replacedFileId)).isZero();
            }
        });

        volume.mkdir("/r/dir", 0755);
        volume.mkdir("/r/dir/sub", 0755);
        assertErrno(() -> volume.rename("/r/dir", "/r/dir/sub/inside"), Errno.EINVAL, "");
        volume.mkdir("/r/full", 0755);
        createFile("/r/full/x", 1);
        assertErrno(() -> volume.rename("/r/dir", "/r/full"), Errno.ENOTEMPTY, "");
        volume.mkdir("/r/empty", 0755);
        volume.rename("/r/dir", "/r/empty");
        assertThat(volume.getattr("/r/empty/sub").getMode() & 0170000).isEqualTo(0040000);
        createFile("/r/c", 1);
        assertErrno(() -> volume.rename("/r/c", "/r/b", 1), Errno.EEXIST, "");
    }

    // Hard links share the inode and keep the data until the last name is gone; symlinks are read and followed.
    @Test
    void linksAndSymlinks() throws Exception {
        createFile("/orig", 1234);
        volume.link("/orig", "/hard");
        assertThat(volume.getattr("/hard").getInode()).isEqualTo(volume.getattr("/orig").getInode());
        assertThat(freshGetattr("/orig").getNlink()).isEqualTo(2);
        volume.unlink("/orig");
        try (FileHandle file = volume.open("/hard", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.read(0, 2000)).hasSize(1234);
        }
        volume.symlink("hard", "/soft");
        assertThat(volume.readlink("/soft")).isEqualTo("hard");
        try (FileHandle file = volume.open("/soft", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.sizeBytes()).isEqualTo(1234);
        }
        volume.symlink("loop", "/loop");
        assertErrno(() -> volume.open("/loop", OpenFlags.O_RDONLY, 0), Errno.ELOOP, "");
    }

    // Extended attributes can be set, listed, read, replaced and removed; a missing one is ENODATA.
    @Test
    void extendedAttributes() throws Exception {
        createFile("/x", 0);
        volume.setxattr("/x", "user.a", "1".getBytes(StandardCharsets.UTF_8), 0);
        volume.setxattr("/x", "user.b", "2".getBytes(StandardCharsets.UTF_8), 0);
        assertThat(volume.listxattr("/x")).contains("user.a", "user.b");
        volume.setxattr("/x", "user.a", "3".getBytes(StandardCharsets.UTF_8), 2);
        assertThat(new String(volume.getxattr("/x", "user.a"), StandardCharsets.UTF_8)).isEqualTo("3");
        volume.removexattr("/x", "user.b");
        assertErrno(() -> volume.getxattr("/x", "user.b"), Errno.ENODATA, "");
        assertErrno(() -> volume.setxattr("/x", "user.a", new byte[1], 1), Errno.EEXIST, "");
    }

    // Another user cannot write into a 0755 directory, read a 0600 file or chmod it; access() agrees.
    @Test
    void permissionDenials() throws Exception {
        volume.mkdir("/private", 0755);
        createFile("/private/secret", 10);
        volume.chmod("/private/secret", 0600);
        Volume foreign = stranger.openVolume("names");
        assertErrno(() -> foreign.open("/private/new", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644),
                Errno.EACCES, "'names/private/new'");
        assertErrno(() -> foreign.open("/private/secret", OpenFlags.O_RDONLY, 0), Errno.EACCES, "");
        assertErrno(() -> foreign.chmod("/private/secret", 0777), Errno.EPERM, "");
        assertErrno(() -> foreign.access("/private/secret", 4), Errno.EACCES, "");
        volume.access("/private/secret", 4 | 2);
        assertErrno(() -> foreign.unlink("/private/secret"), Errno.EACCES, "");
    }

    // truncate sets the size, chmod and utimens (after it, since truncate sets mtime) mode and times;
    // statvfs answers for the volume.
    @Test
    void attributesAndStatvfs() throws Exception {
        createFile("/attrs", 500);
        volume.truncate("/attrs", 100);
        volume.chmod("/attrs", 0640);
        volume.utimens("/attrs", 1_000_000_000L, 2_000_000_000L);
        var stat = freshGetattr("/attrs");
        assertThat(stat.getMode() & 07777).isEqualTo(0640);
        assertThat(stat.getMtimeNs()).isEqualTo(2_000_000_000L);
        assertThat(stat.getSizeBytes()).isEqualTo(100);
        assertThat(volume.statvfs().getVolumeId()).isEqualTo(volume.id());
    }

    // getattr results are served from the cache within the TTL (a remote chmod is not seen yet), while a
    // change made through the same volume is visible at once.
    @Test
    void metadataCacheHonoursTtlAndLocalChanges() throws Exception {
        createFile("/cached", 0);
        volume.chmod("/cached", 0644);
        try (Client caching = cluster.client(ClientOptions.builder().metadataCacheTtlMs(600_000)
                .userCredentials(ClientOptions.user("alice", 1000, 1000, List.of())))) {
            Volume cachingVolume = caching.openVolume("names");
            assertThat(cachingVolume.getattr("/cached").getMode() & 07777).isEqualTo(0644);
            volume.chmod("/cached", 0600);
            assertThat(cachingVolume.getattr("/cached").getMode() & 07777).isEqualTo(0644);
            cachingVolume.chmod("/cached", 0640);
            assertThat(cachingVolume.getattr("/cached").getMode() & 07777).isEqualTo(0640);
            cachingVolume.invalidateCache();
            volume.chmod("/cached", 0604);
            assertThat(cachingVolume.getattr("/cached").getMode() & 07777).isEqualTo(0604);
        }
    }

    private static org.xtreemfs.interfaces.mrc.Stat freshGetattr(String path) throws XtreemFSException {
        volume.invalidateCache();
        return volume.getattr(path);
    }

    private static String createFile(String path, int sizeBytes) throws XtreemFSException {
        try (FileHandle file = volume.open(path, OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY, 0644)) {
            if (sizeBytes > 0) {
                file.write(0, new byte[sizeBytes]);
            }
            return file.fileId();
        }
    }

    private static void assertErrno(ThrowingCallable call, int errno, String messagePart) {
        assertThatThrownBy(call).isInstanceOfSatisfying(XtreemFSException.class,
                e -> assertThat(e.errno()).as(e.getMessage()).isEqualTo(errno)).hasMessageContaining(messagePart);
    }
}
