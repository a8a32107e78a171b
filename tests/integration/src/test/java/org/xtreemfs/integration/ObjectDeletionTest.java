package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.interfaces.common.StripingPolicy;

/**
 * The MRC deletes unlinked files' objects on the OSDs itself (servers/mrc/README.md, "Deletion"): unlink records the
 * deletion in its batch and returns; the MRC sends the OSDs batches in the background until each took them. Here on
 * real server processes: an OSD down while the files are unlinked and an MRC killed with SIGKILL before that OSD came
 * back lose no deletion, and nothing of the files stays on any OSD.
 */
class ObjectDeletionTest {
    private static final int OBJECT = Volumes.OBJECT_SIZE_BYTES;
    private static final int FILES = 12;
    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.closeLeavingNoProcess();
        }
    }

    @Test
    void unlinkedFilesLeaveNothingOnTheOsdsAcrossAnOsdOutageAndAnMrcKill() throws Exception {
        cluster = TestCluster.startProcesses(3);
        List<String> fileIds = new ArrayList<>();
        String neverWritten;
        try (Client client = cluster.client()) {
            client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("gone").setMode(0777)
                    .setDefaultStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(OBJECT).setWidth(3))
                    .build());
            Volume volume = client.openVolume("gone");
            for (int index = 0; index < FILES; index++) {
                try (FileHandle file = volume.open("/f" + index, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                    file.write(0, new byte[4 * OBJECT]);
                    file.fsync();
                    fileIds.add(file.fileId());
                }
            }
            try (FileHandle file = volume.open("/empty", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                neverWritten = file.fileId();
            }
            for (int osd = 0; osd < 3; osd++) {
                assertThat(storedObjects(osd, fileIds)).as("osd%d holds objects of every file", osd)
                        .isGreaterThanOrEqualTo(FILES);
            }

            // osd0 is down while the files go: the MRC cannot deliver there and keeps them recorded.
            cluster.kill("osd0", "KILL");
            for (int index = 0; index < FILES; index++) {
                volume.unlink("/f" + index);
            }
            volume.unlink("/empty");
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(storedObjects(1, fileIds)).as("osd1 deleted what it holds").isZero();
            assertThat(storedObjects(2, fileIds)).as("osd2 deleted what it holds").isZero();
        });
        assertThat(cluster.statusNumber("mrc", "deletedFilesRecorded")).isEqualTo(FILES + 1);
        assertThat(cluster.statusNumber("mrc", "deletedFilesWaiting")).as("osd0 took none of them")
                .isEqualTo(FILES + 1);
        assertThat(storedObjects(0, fileIds)).as("osd0 still holds its objects").isGreaterThanOrEqualTo(FILES);

        // The MRC dies with the deletions still owed; it finds them recorded after its restart.
        cluster.kill("mrc", "KILL");
        cluster.restart("mrc");
        cluster.restart("osd0");
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            assertThat(storedObjects(0, fileIds)).as("osd0 deleted them after both restarts").isZero();
            assertThat(cluster.statusNumber("mrc", "deletedFilesWaiting")).isZero();
        });
        assertThat(cluster.statusNumber("mrc", "deletedFilesDone")).as("the restarted MRC finished them all")
                .isEqualTo(FILES + 1);
        for (int osd = 0; osd < 3; osd++) {
            assertThat(Volumes.storedObjects(cluster.osdDataFolder(osd), neverWritten)).isZero();
            assertThat(storedObjects(osd, fileIds)).isZero();
        }
    }

    private long storedObjects(int osd, List<String> fileIds) throws Exception {
        long stored = 0;
        for (String fileId : fileIds) {
            stored += Volumes.storedObjects(cluster.osdDataFolder(osd), fileId);
        }
        return stored;
    }
}
