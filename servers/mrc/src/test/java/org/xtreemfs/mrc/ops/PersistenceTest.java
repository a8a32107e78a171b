package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.kv.RocksKvOptions;
import org.xtreemfs.foundation.kv.RocksKvStore;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.Namespace;

/** What operations commit survives reopening the store (a restart). */
class PersistenceTest {
    @TempDir
    Path folder;

    @Test
    void namespaceSurvivesReopeningTheDatabase() throws Exception {
        // Volumes, directories, files, sizes, links, symlinks and xattrs are intact after close and reopen.
        Volume volume;
        OpenResult file;
        try (RocksKvStore store = RocksKvStore.open(RocksKvOptions.defaults(folder))) {
            NamespaceFixture fixture = new NamespaceFixture(store);
            volume = fixture.createVolume("vol");
            Namespace namespace = fixture.namespace;
            MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/d", 0750);
            file = fixture.open(fixture.as(ROOT), "vol", "/d/f", NamespaceFixture.CREAT | NamespaceFixture.WRONLY,
                    0640);
            UpdateFileSizeOp.updateFileSize(namespace, fixture.as(ROOT), volume.getId(), file.record().inode(), 777, 0,
                    true);
            LinkOp.link(namespace, fixture.as(ROOT), "vol", "/d/f", "/hard");
            SymlinkOp.symlink(namespace, fixture.as(ROOT), "vol", "d/f", "/soft");
            SetxattrOp.setxattr(namespace, fixture.as(ROOT), "vol", "/d", "user.k",
                    "v".getBytes(StandardCharsets.UTF_8), 0);
        }
        try (RocksKvStore store = RocksKvStore.open(RocksKvOptions.defaults(folder))) {
            NamespaceFixture fixture = new NamespaceFixture(store);
            Namespace namespace = fixture.namespace;
            assertThat(namespace.volume("vol")).isEqualTo(volume);
            assertThat(GetattrOp.getattr(namespace, fixture.as(ROOT), "vol", "/d/f").getSizeBytes()).isEqualTo(777);
            assertThat(GetattrOp.getattr(namespace, fixture.as(ROOT), "vol", "/hard").getNlink()).isEqualTo(2);
            assertThat(ReadlinkOp.readlink(namespace, fixture.as(ROOT), "vol", "/soft")).isEqualTo("d/f");
            assertThat(new String(GetxattrOp.getxattr(namespace, fixture.as(ROOT), "vol", "/d", "user.k"),
                    StandardCharsets.UTF_8))
                    .isEqualTo("v");
            assertThat(namespace.inodeOf(namespace.begin(), volume.getId(), file.record().inode()).xlocs())
                    .isEqualTo(file.record().xlocs());
            assertThat(ReaddirOp.readdir(namespace, fixture.as(ROOT), "vol", "/", 0, 0, true).getEntriesList())
                    .extracting(DirectoryEntry::getName).containsExactly(".", "..", "d", "hard", "soft");
            long next = MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/new", 0755).getInode();
            assertThat(next).as("inode counter persisted").isGreaterThan(file.record().inode() + 1);
        }
    }
}
