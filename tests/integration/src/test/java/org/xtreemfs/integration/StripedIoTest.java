package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.interfaces.common.StripingPolicy;

/** Striped file I/O through the Java client against a DIR, an MRC and three OSDs. */
class StripedIoTest {
    private static final int MIB = 1 << 20;
    private static final int OBJECT = Volumes.OBJECT_SIZE_BYTES;
    private static ClusterWithVolume fixture;
    private static TestCluster cluster;
    private static Client client;
    private static Volume volume;

    @BeforeAll
    static void startCluster() throws Exception {
        fixture = ClusterWithVolume.start(3, Map.of(), "striped", 3);
        cluster = fixture.cluster();
        client = fixture.client();
        volume = fixture.volume();
    }

    @AfterAll
    static void stopCluster() {
        if (fixture != null) {
            fixture.close();
        }
    }

    // A 100 MiB file written in random-sized pieces in random order reads back identically, by SHA-256 of a
    // sequential read and by random reads, and its objects are spread over all three OSDs.
    @Test
    void hundredMebibyteFileMatchesByChecksum() throws Exception {
        int sizeBytes = 100 * MIB;
        Random random = new Random(20261122);
        byte[] expected = new byte[sizeBytes];
        random.nextBytes(expected);
        List<int[]> pieces = new ArrayList<>();
        for (int offset = 0; offset < sizeBytes; ) {
            int length = Math.min(sizeBytes - offset, 1 + random.nextInt(3 * MIB));
            pieces.add(new int[] {offset, length});
            offset += length;
        }
        Collections.shuffle(pieces, random);
        String fileId;
        try (FileHandle file = volume.open("/big", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            assertThat(file.stripeOsdUuids()).hasSize(3).containsExactlyInAnyOrderElementsOf(cluster.osdUuids());
            fileId = file.fileId();
            for (int[] piece : pieces) {
                file.write(piece[0], expected, piece[0], piece[1]);
            }
            file.fsync();
        }
        assertThat(freshVolume().getattr("/big").getSizeBytes()).isEqualTo(sizeBytes);
        for (int index = 0; index < 3; index++) {
            // 800 objects round-robin over 3 OSDs: 267 or 266 each.
            assertThat(Volumes.storedObjects(cluster.osdDataFolder(index), fileId)).isBetween(266L, 267L);
        }

        try (FileHandle file = freshVolume().open("/big", OpenFlags.O_RDONLY, 0)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[7 * MIB + 3];
            long offset = 0;
            int read;
            while ((read = file.read(offset, buffer, 0, buffer.length)) > 0) {
                digest.update(buffer, 0, read);
                offset += read;
            }
            assertThat(offset).isEqualTo(sizeBytes);
            assertThat(digest.digest()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(expected));
            for (int round = 0; round < 200; round++) {
                int start = random.nextInt(sizeBytes);
                int length = 1 + random.nextInt(2 * MIB);
                byte[] actual = file.read(start, length);
                int expectedLength = Math.min(length, sizeBytes - start);
                assertThat(actual).hasSize(expectedLength);
                assertThat(Arrays.equals(actual, 0, expectedLength, expected, start, start + expectedLength))
                        .as("bytes [%d, %d)", start, start + expectedLength).isTrue();
            }
        }
    }

    // Holes inside a file (never-written objects and gaps inside objects) read as zeros, up to the size only.
    @Test
    void sparseFileReadsZeros() throws Exception {
        byte[] head = filled(100, (byte) 1);
        byte[] middle = filled(10, (byte) 2);
        byte[] tail = filled(5, (byte) 3);
        long middleOffset = OBJECT + 300;
        long tailOffset = 5L * MIB + 7;
        try (FileHandle file = volume.open("/sparse", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, head);
            file.write(middleOffset, middle);
            file.write(tailOffset, tail);
        }
        try (FileHandle file = freshVolume().open("/sparse", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.sizeBytes()).isEqualTo(tailOffset + tail.length);
            byte[] all = file.read(0, 8 * MIB);
            assertThat(all).hasSize((int) (tailOffset + tail.length));
            byte[] expected = new byte[all.length];
            System.arraycopy(head, 0, expected, 0, head.length);
            System.arraycopy(middle, 0, expected, (int) middleOffset, middle.length);
            System.arraycopy(tail, 0, expected, (int) tailOffset, tail.length);
            Bytes.assertSameBytes(all, expected);
            assertThat(file.read(tailOffset + tail.length, 10)).isEmpty();
            assertThat(file.read(tailOffset + 2, 100)).hasSize(3);
        }
    }

    // Truncating down across object boundaries cuts the data; truncating up exposes zeros, never old data.
    @Test
    void truncateUpAndDownAcrossObjectBoundaries() throws Exception {
        byte[] data = new byte[8 * OBJECT + 1000];
        new Random(7).nextBytes(data);
        try (FileHandle file = volume.open("/truncated", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, data);
            file.fsync();
            long down = 2L * OBJECT + 12345;
            file.truncate(down);
            assertThat(freshVolume().getattr("/truncated").getSizeBytes()).isEqualTo(down);
            Bytes.assertSameBytes(file.read(0, data.length), Arrays.copyOf(data, (int) down));

            long up = 6L * OBJECT + 17;
            file.truncate(up);
            byte[] afterUp = file.read(0, data.length);
            byte[] expected = new byte[(int) up];
            System.arraycopy(data, 0, expected, 0, (int) down);
            Bytes.assertSameBytes(afterUp, expected);

            // Down again, to an object boundary above the first cut: the zeros of the hole stay zeros.
            file.truncate(3L * OBJECT);
            Bytes.assertSameBytes(file.read(0, data.length), Arrays.copyOf(expected, 3 * OBJECT));
            file.write(5L * OBJECT, new byte[] {9});
        }
        try (FileHandle file = freshVolume().open("/truncated", OpenFlags.O_RDONLY, 0)) {
            byte[] expected = new byte[5 * OBJECT + 1];
            System.arraycopy(data, 0, expected, 0, 2 * OBJECT + 12345);
            expected[5 * OBJECT] = 9;
            Bytes.assertSameBytes(file.read(0, data.length), expected);
        }
        freshVolume().truncate("/truncated", 0);
        assertThat(freshVolume().getattr("/truncated").getSizeBytes()).isZero();
        try (FileHandle file = freshVolume().open("/truncated", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.read(0, 100)).isEmpty();
        }
    }

    // O_TRUNC empties a file including its objects; O_APPEND writes at the end.
    @Test
    void openTruncAndAppend() throws Exception {
        try (FileHandle file = volume.open("/log", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644)) {
            file.write(0, filled(3 * OBJECT, (byte) 5));
        }
        try (FileHandle file = volume.open("/log", OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0)) {
            file.write(0, new byte[] {1, 2});
        }
        try (FileHandle file = volume.open("/log", OpenFlags.O_WRONLY | OpenFlags.O_APPEND, 0)) {
            assertThat(file.write(0, new byte[] {3})).isEqualTo(2);
        }
        try (FileHandle file = freshVolume().open("/log", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.read(0, 4 * OBJECT)).containsExactly(1, 2, 3);
        }
    }

    // Unlinking the last name of a file deletes its objects on every OSD; reads and writes on a closed
    // handle and on a missing file fail with the right errno.
    @Test
    void unlinkDeletesObjectsOnTheOsds() throws Exception {
        String fileId;
        try (FileHandle file = volume.open("/doomed", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, filled(4 * OBJECT, (byte) 8));
            file.fsync();
            fileId = file.fileId();
        }
        long stored = 0;
        for (int index = 0; index < 3; index++) {
            stored += Volumes.storedObjects(cluster.osdDataFolder(index), fileId);
        }
        assertThat(stored).isEqualTo(4);
        volume.unlink("/doomed");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (int index = 0; index < 3; index++) {
                assertThat(Volumes.storedObjects(cluster.osdDataFolder(index), fileId)).isZero();
            }
        });
        assertThatThrownBy(() -> volume.open("/doomed", OpenFlags.O_RDONLY, 0))
                .isInstanceOfSatisfying(XtreemFSException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT))
                .hasMessageContaining("'striped/doomed'");
        FileHandle closed = volume.open("/closed", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        closed.close();
        assertThatThrownBy(() -> closed.write(0, new byte[1]))
                .isInstanceOfSatisfying(XtreemFSException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBADF));
    }

    // Another client sees the size a writer reported on fsync, even before the writer closes.
    @Test
    void sizeIsVisibleToOtherClientsAfterFsync() throws Exception {
        try (FileHandle file = volume.open("/shared", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
                Client other = cluster.client()) {
            file.write(0, filled(OBJECT + 1, (byte) 4));
            file.fsync();
            Volume otherVolume = other.openVolume("striped");
            assertThat(otherVolume.getattr("/shared").getSizeBytes()).isEqualTo(OBJECT + 1);
            try (FileHandle reader = otherVolume.open("/shared", OpenFlags.O_RDONLY, 0)) {
                assertThat(reader.read(OBJECT - 1, 10)).containsExactly(4, 4);
            }
        }
    }

    // The largest object size mkfs and the MRC accept is one every server can serve: a file of such
    // objects over three OSDs reads back identically, whole objects in one read included; one 4 KiB
    // step larger is refused at volume creation, naming the value.
    @Test
    void largestAcceptedObjectSizeWorksEndToEnd() throws Exception {
        int objectBytes = StripingRules.OBJECT_SIZE_BYTES_MAX;
        client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("large-objects").setMode(0777)
                .setDefaultStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(objectBytes).setWidth(3))
                .build());
        byte[] expected = new byte[2 * objectBytes + 12345];
        new Random(16).nextBytes(expected);
        Volume large = client.openVolume("large-objects");
        try (FileHandle file = large.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, expected, 0, expected.length);
            file.fsync();
        }
        try (FileHandle file = freshVolume("large-objects").open("/f", OpenFlags.O_RDONLY, 0)) {
            assertThat(file.read(0, expected.length)).isEqualTo(expected);
            assertThat(file.read(objectBytes, objectBytes))
                    .isEqualTo(Arrays.copyOfRange(expected, objectBytes, 2 * objectBytes));
        }
        int tooLarge = objectBytes + 4096;
        assertThatThrownBy(() -> client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder()
                .setName("too-large-objects").setDefaultStripingPolicy(StripingPolicy.newBuilder()
                        .setObjectSizeBytes(tooLarge)).build()))
                .isInstanceOf(XtreemFSException.class).hasMessageContaining(Integer.toString(tooLarge));
    }

    /** A volume handle without cached metadata. */
    private static Volume freshVolume() throws XtreemFSException {
        return freshVolume("striped");
    }

    private static Volume freshVolume(String name) throws XtreemFSException {
        Volume fresh = client.openVolume(name);
        fresh.invalidateCache();
        return fresh;
    }

    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }
}
