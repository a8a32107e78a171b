package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** osd.storage.layout=role: a new file is placed by its role, and a file keeps its layout when its role changes. */
class RoleLayoutStorageTest {
    private static final int OBJECT = 4096;
    private static final StripeLayout LAYOUT = StripeLayout.single(OBJECT);
    private static final LogStructuredStore.Options OPTIONS = new LogStructuredStore.Options(1 << 20, 25);

    @TempDir
    Path root;

    @Test
    void theTailsFilesGoToTheLogTheOthersToObjectFiles() throws Exception {
        try (RoleLayoutStorage storage = RoleLayoutStorage.open(root, StorageDevice.NONE, OPTIONS)) {
            write(storage.forRole(ReplicaRole.TAIL), "v:1", 0, bytes(1, 100));
            write(storage.forRole(ReplicaRole.HEAD), "v:2", 0, bytes(2, 100));
            write(storage.forRole(ReplicaRole.MIDDLE), "v:3", 0, bytes(3, 100));
            write(storage.forRole(ReplicaRole.SOLE), "v:4", 0, bytes(4, 100));
            assertThat(storage.log().exists("v:1")).isTrue();
            assertThat(Files.exists(root.resolve(conventionalPath("v:1")))).isFalse();
            for (String other : new String[] {"v:2", "v:3", "v:4"}) {
                assertThat(storage.log().exists(other)).as(other).isFalse();
                assertThat(storage.read(other, LAYOUT, 0, 0, 100)).hasSize(100);
            }
            assertThat(storage.read("v:1", LAYOUT, 0, 0, 100)).isEqualTo(bytes(1, 100));
        }
    }

    // A tail that becomes a middle (and a middle that becomes the tail) keeps writing and reading where the file's
    // data is; nothing is copied between layouts, and it all survives a reopen.
    @Test
    void aFileKeepsItsLayoutWhenItsRoleChanges() throws Exception {
        try (RoleLayoutStorage storage = RoleLayoutStorage.open(root, StorageDevice.NONE, OPTIONS)) {
            write(storage.forRole(ReplicaRole.TAIL), "v:tail", 0, bytes(1, OBJECT));
            write(storage.forRole(ReplicaRole.MIDDLE), "v:tail", 0, bytes(9, 10));
            write(storage.forRole(ReplicaRole.MIDDLE), "v:tail", 1, bytes(2, OBJECT));
            write(storage.forRole(ReplicaRole.MIDDLE), "v:middle", 0, bytes(3, OBJECT));
            write(storage.forRole(ReplicaRole.TAIL), "v:middle", 1, bytes(4, OBJECT));
            assertThat(storage.log().storedObjects("v:tail")).containsExactly(0L, 1L);
            assertThat(storage.log().exists("v:middle")).isFalse();
            storage.forRole(ReplicaRole.HEAD).truncate("v:tail", LAYOUT, OBJECT + 5, 1);
            storage.forRole(ReplicaRole.TAIL).fsync("v:middle");
        }
        try (RoleLayoutStorage storage = RoleLayoutStorage.open(root, StorageDevice.NONE, OPTIONS)) {
            byte[] first = bytes(1, OBJECT);
            System.arraycopy(bytes(9, 10), 0, first, 0, 10);
            assertThat(storage.read("v:tail", LAYOUT, 0, 0, OBJECT)).isEqualTo(first);
            assertThat(storage.read("v:tail", LAYOUT, 1, 0, OBJECT)).isEqualTo(Arrays.copyOf(bytes(2, OBJECT), 5));
            assertThat(storage.metadata("v:tail").sizeBytes()).isEqualTo(OBJECT + 5);
            assertThat(storage.read("v:middle", LAYOUT, 1, 0, OBJECT)).isEqualTo(bytes(4, OBJECT));
            assertThat(storage.storedObjects("v:middle")).containsExactly(0L, 1L);
            storage.deleteFile("v:tail");
            storage.deleteFile("v:middle");
            assertThat(storage.exists("v:tail")).isFalse();
            assertThat(storage.exists("v:middle")).isFalse();
            assertThat(storage.read("v:middle", LAYOUT, 0, 0, OBJECT)).isEmpty();
        }
    }

    // A folder written with osd.storage.layout=conventional, opened by role: a tail's write to an existing file stays
    // in its object files.
    @Test
    void aConventionalFolderKeepsItsFilesUnderRoles() throws Exception {
        try (ObjectStore conventional = ObjectStore.open(root)) {
            conventional.write("v:old", LAYOUT, 0, 0, ByteBuffer.wrap(bytes(5, OBJECT)), 0, true);
        }
        try (RoleLayoutStorage storage = RoleLayoutStorage.open(root, StorageDevice.NONE, OPTIONS)) {
            write(storage.forRole(ReplicaRole.TAIL), "v:old", 0, bytes(6, 10));
            assertThat(storage.log().exists("v:old")).isFalse();
            byte[] expected = bytes(5, OBJECT);
            System.arraycopy(bytes(6, 10), 0, expected, 0, 10);
            assertThat(storage.read("v:old", LAYOUT, 0, 0, OBJECT)).isEqualTo(expected);
        }
    }

    // The place of an object neither layout holds in memory: with the log holding some of the file, an object file
    // that exists is written where it is and a new object goes to the log; without, both go to the file's folder, and
    // only a file this OSD holds nothing of is placed by its role (forObject looks the object's path up only in the
    // first case).
    @Test
    void anObjectIsWrittenWhereItIsAndANewOneWhereTheFilesOthersAre() throws Exception {
        try (ObjectStore conventional = ObjectStore.open(root)) {
            conventional.write("v:mixed", LAYOUT, 0, 0, ByteBuffer.wrap(bytes(1, OBJECT)), 0, true);
            conventional.write("v:folder", LAYOUT, 0, 0, ByteBuffer.wrap(bytes(2, OBJECT)), 0, true);
        }
        Path mixedFolder = root.resolve(conventionalPath("v:mixed"));
        Path folderFolder = root.resolve(conventionalPath("v:folder"));
        try (RoleLayoutStorage storage = RoleLayoutStorage.open(root, StorageDevice.NONE, OPTIONS)) {
            // A file split over both layouts (two first writes raced under different roles): object 5 in the log.
            storage.log().write("v:mixed", LAYOUT, 5, 0, ByteBuffer.wrap(bytes(3, OBJECT)), 0, true);
            write(storage.forRole(ReplicaRole.HEAD), "v:mixed", 0, bytes(4, 10));
            write(storage.forRole(ReplicaRole.HEAD), "v:mixed", 7, bytes(5, OBJECT));
            write(storage.forRole(ReplicaRole.TAIL), "v:folder", 0, bytes(6, 10));
            write(storage.forRole(ReplicaRole.TAIL), "v:folder", 3, bytes(7, OBJECT));
            write(storage.forRole(ReplicaRole.TAIL), "v:new", 0, bytes(8, OBJECT));
            assertThat(storage.log().storedObjects("v:mixed")).containsExactly(5L, 7L);
            assertThat(Files.exists(mixedFolder.resolve("7"))).isFalse();
            byte[] expected = bytes(1, OBJECT);
            System.arraycopy(bytes(4, 10), 0, expected, 0, 10);
            assertThat(storage.read("v:mixed", LAYOUT, 0, 0, OBJECT)).isEqualTo(expected);
            assertThat(storage.read("v:mixed", LAYOUT, 7, 0, OBJECT)).isEqualTo(bytes(5, OBJECT));
            assertThat(storage.log().exists("v:folder")).isFalse();
            assertThat(Files.exists(folderFolder.resolve("3"))).isTrue();
            assertThat(storage.read("v:folder", LAYOUT, 3, 0, OBJECT)).isEqualTo(bytes(7, OBJECT));
            assertThat(storage.log().storedObjects("v:new")).containsExactly(0L);
        }
    }

    private static void write(ObjectStorage storage, String fileId, long object, byte[] data) throws Exception {
        storage.write(fileId, LAYOUT, object, 0, ByteBuffer.wrap(data), 1, true);
    }

    private Path conventionalPath(String fileId) throws Exception {
        try (ObjectStore paths = new ObjectStore(root.resolve("paths"), new org.xtreemfs.foundation.kv.InMemoryKvStore())) {
            return root.relativize(root.resolve(root.resolve("paths").relativize(paths.fileFolder(fileId))));
        }
    }

    private static byte[] bytes(int seed, int length) {
        byte[] bytes = new byte[length];
        new java.util.Random(seed).nextBytes(bytes);
        return bytes;
    }
}
