package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;

/**
 * Issue 13: object files were 0644, readable by every local user. After a cluster of server processes has written
 * a file, nothing the servers or the launcher wrote is reachable by another user: every folder in the cluster's
 * state (databases, object folders, logs) is 0700 and every file in it 0600: objects, logs and the secret are
 * created so, RocksDB's files by the umask 077 the launcher gives the servers.
 */
class PrivateFilesTest {
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");

    @Test
    void everythingTheClusterWritesIsTheServiceUsersAlone() throws Exception {
        try (TestCluster cluster = TestCluster.startProcesses(1)) {
            try (Client client = cluster.client()) {
                Volumes.create(client, "private", 1);
                Volume volume = client.openVolume("private");
                try (FileHandle file = volume.open("/secret-plans", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0600)) {
                    file.write(0, new byte[200_000]);
                    file.fsync();
                }
            }
            Path state = cluster.launcher().state();
            List<Path> folders = new ArrayList<>();
            List<Path> files = new ArrayList<>();
            try (Stream<Path> tree = Files.walk(state)) {
                tree.forEach(path -> (Files.isDirectory(path) ? folders : files).add(path));
            }
            for (Path folder : folders) {
                assertThat(Files.getPosixFilePermissions(folder)).as("mode of %s", folder).isEqualTo(FOLDER);
            }
            Path objects = cluster.osdDataFolder(0);
            assertThat(files).as("object files under %s", objects).anyMatch(file -> file.startsWith(objects)
                    && file.getFileName().toString().matches("\\d+")); // object files are named by number
            assertThat(files).as("logs and the secret").contains(state.resolve("log/dir.log"),
                    state.resolve("log/osd0.log"), state.resolve("capability.secret"));
            assertThat(files).as("RocksDB's files").anyMatch(file -> file.getFileName().toString().startsWith("MANIFEST"));
            for (Path file : files) {
                assertThat(Files.getPosixFilePermissions(file)).as("mode of %s", file).isEqualTo(FILE);
            }
        }
    }
}
