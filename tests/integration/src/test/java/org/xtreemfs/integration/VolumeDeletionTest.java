package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;

/**
 * Deleting a volume removes its objects from every OSD in the background (the DIR names the deleted volume
 * in its heartbeat answers, each OSD's VolumeReaper queues the files), while another volume's objects stay.
 */
class VolumeDeletionTest {
    private static final int OBJECT = Volumes.OBJECT_SIZE_BYTES;

    @Test
    void deletingAVolumeRemovesItsObjectsFromEveryOsdAndKeepsOtherVolumes() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, Map.of("osd.deletion.delayMs", "0",
                "osd.deletion.deletedVolumeFilesPerHeartbeat", "2"), Map.of());
                Client client = cluster.client()) {
            Volumes.create(client, "doomed", 2);
            Volumes.create(client, "kept", 2);
            String[] doomedFileIds = new String[5];
            try (Volume doomed = client.openVolume("doomed")) {
                for (int index = 0; index < doomedFileIds.length; index++) {
                    doomedFileIds[index] = write(doomed, "/f" + index, (byte) index);
                }
            }
            Volume kept = client.openVolume("kept");
            String keptFileId = write(kept, "/f", (byte) 9);
            for (String fileId : doomedFileIds) {
                assertThat(storedOnAllOsds(cluster, fileId)).as("objects of %s before", fileId).isEqualTo(4);
            }

            client.deleteVolume("doomed");

            // Two files per heartbeat (300 ms here) per OSD: five files need three heartbeats.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                for (String fileId : doomedFileIds) {
                    assertThat(storedOnAllOsds(cluster, fileId)).as("objects of %s after", fileId).isZero();
                }
            });
            assertThat(storedOnAllOsds(cluster, keptFileId)).isEqualTo(4);
            try (kept; FileHandle file = kept.open("/f", OpenFlags.O_RDONLY, 0)) {
                byte[] expected = new byte[4 * OBJECT];
                Arrays.fill(expected, (byte) 9);
                assertThat(file.read(0, 4 * OBJECT)).isEqualTo(expected);
            }
        }
    }

    /** Writes 4 objects of {@code fill} to a new file; returns its file id. */
    private static String write(Volume volume, String path, byte fill) throws Exception {
        try (FileHandle file = volume.open(path, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            byte[] data = new byte[4 * OBJECT];
            Arrays.fill(data, fill);
            file.write(0, data);
            file.fsync();
            return file.fileId();
        }
    }

    private static long storedOnAllOsds(TestCluster cluster, String fileId) throws Exception {
        long stored = 0;
        for (int index = 0; index < 2; index++) {
            stored += Volumes.storedObjects(cluster.osdDataFolder(index), fileId);
        }
        return stored;
    }
}
