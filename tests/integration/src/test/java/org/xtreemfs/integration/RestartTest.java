package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.Stat;

/** Data and metadata survive a restart of the MRC and all OSDs (new ports, same data folders). */
class RestartTest {
    private TestCluster cluster;

    @BeforeEach
    void startCluster() throws Exception {
        cluster = TestCluster.start(3);
    }

    @AfterEach
    void stopCluster() {
        cluster.close();
    }

    // Files, sizes, modes, directories, links and xattrs written before a restart of the MRC and the OSDs
    // read back identically afterwards, through the same client (which finds the new ports through the DIR)
    // and through a new one.
    @Test
    void dataAndMetadataSurviveRestartOfMrcAndOsds() throws Exception {
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(3).nextBytes(data);
        Stat before;
        try (Client client = cluster.client()) {
            Volumes.create(client, "durable", 3);
            Volume volume = client.openVolume("durable");
            volume.mkdir("/dir", 0750);
            try (FileHandle file = volume.open("/dir/file", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0640)) {
                file.write(0, data);
                file.fsync();
            }
            volume.symlink("file", "/dir/link");
            volume.setxattr("/dir/file", "user.color", "blue".getBytes(StandardCharsets.UTF_8), 0);
            before = volume.getattr("/dir/file");

            cluster.restartMrcAndOsds();

            volume.invalidateCache();
            assertSurvived(volume, data, before);
        }
        try (Client fresh = cluster.client()) {
            assertSurvived(fresh.openVolume("durable"), data, before);
        }
    }

    private static void assertSurvived(Volume volume, byte[] data, Stat before) throws Exception {
        Stat after = volume.getattr("/dir/file");
        assertThat(after.getSizeBytes()).isEqualTo(data.length);
        assertThat(after.getInode()).isEqualTo(before.getInode());
        assertThat(after.getMode()).isEqualTo(before.getMode());
        assertThat(volume.getattr("/dir").getMode() & 07777).isEqualTo(0750);
        assertThat(volume.readdir("/dir").stream().map(DirectoryEntry::getName))
                .contains("file", "link");
        assertThat(volume.readlink("/dir/link")).isEqualTo("file");
        assertThat(new String(volume.getxattr("/dir/file", "user.color"), StandardCharsets.UTF_8)).isEqualTo("blue");
        try (FileHandle file = volume.open("/dir/link", OpenFlags.O_RDONLY, 0)) {
            Bytes.assertSameBytes(file.read(0, data.length + 100), data);
        }
    }
}
