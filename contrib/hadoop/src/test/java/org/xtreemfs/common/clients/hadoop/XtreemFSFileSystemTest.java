package org.xtreemfs.common.clients.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;

/** What the contract suites do not cover: locality, FileContext, paging, identities, buffers, the volume root. */
class XtreemFSFileSystemTest {
    private static final int OBJECT = SharedCluster.OBJECT_SIZE_BYTES;
    private static SharedCluster cluster;
    private static FileSystem fs;
    private static Path base;

    @BeforeAll
    static void start() throws IOException {
        cluster = SharedCluster.get();
        Configuration conf = cluster.configuration();
        // Small buffers and blocks, so a few hundred KiB exercise read-ahead, buffer refills and many blocks.
        conf.set(XtreemFSOptions.READ_BUFFER_SIZE, "16k");
        conf.set(XtreemFSOptions.WRITE_BUFFER_SIZE, "24k");
        conf.set(XtreemFSOptions.BLOCK_SIZE, String.valueOf(OBJECT));
        conf.setBoolean("fs.xtreemfs.impl.disable.cache", true);
        fs = FileSystem.get(URI.create(cluster.fileSystemUri()), conf);
        base = new Path(cluster.fileSystemUri() + "/" + SharedCluster.VOLUME + "/fs-test");
        fs.delete(base, true);
        assertThat(fs.mkdirs(base)).isTrue();
    }

    @AfterAll
    static void stop() throws IOException {
        if (fs != null) {
            fs.delete(base, true);
            fs.close();
        }
    }

    private static byte[] randomBytes(int length, long seed) {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    private static void write(Path path, byte[] data) throws IOException {
        try (FSDataOutputStream out = fs.create(path, true)) {
            // Uneven pieces: some fit the write buffer, some do not.
            int offset = 0;
            int piece = 1;
            while (offset < data.length) {
                int length = Math.min(piece, data.length - offset);
                out.write(data, offset, length);
                offset += length;
                piece = piece * 7 % 40_000 + 1;
            }
        }
    }

    @Test
    void blockLocationsNameTheOsdsThatHoldEachBlock() throws Exception {
        Path file = new Path(base, "located");
        write(file, randomBytes(5 * OBJECT + 10, 1));
        FileStatus status = fs.getFileStatus(file);
        assertThat(status.getBlockSize()).isEqualTo(OBJECT);
        BlockLocation[] blocks = fs.getFileBlockLocations(status, 0, status.getLen());
        assertThat(blocks).hasSize(6);
        List<String> stripe;
        try (Client client = Client.connect(cluster.launcher().dirSocketAddress(), ClientOptions.defaults())) {
            FileLayoutResponse layout = client.openVolume(SharedCluster.VOLUME).fileLayout("/fs-test/located");
            stripe = layout.getXlocs().getReplicas(0).getOsdUuidsList();
        }
        assertThat(stripe).hasSize(SharedCluster.STRIPE_WIDTH);
        for (int block = 0; block < blocks.length; block++) {
            String osdUuid = stripe.get(block % SharedCluster.STRIPE_WIDTH);
            String osdName = cluster.launcher().osdNames().stream()
                    .filter(name -> cluster.launcher().uuid(name).equals(osdUuid)).findFirst().orElseThrow();
            assertThat(blocks[block].getOffset()).isEqualTo((long) block * OBJECT);
            assertThat(blocks[block].getNames()).containsExactly("127.0.0.1:" + cluster.launcher().port(osdName));
            assertThat(blocks[block].getHosts()).containsExactly("127.0.0.1");
        }
        assertThat(blocks[5].getLength()).isEqualTo(10);
        assertThat(fs.getFileBlockLocations(status, status.getLen(), 100)).isEmpty();
    }

    @Test
    void sequentialReadsWithReadAheadAndSeeksReturnTheData() throws Exception {
        Path file = new Path(base, "scanned");
        byte[] data = randomBytes(300_000, 2);
        write(file, data);
        try (FSDataInputStream in = fs.open(file)) {
            byte[] read = new byte[data.length];
            int offset = 0;
            int piece = 1;
            while (offset < data.length) {
                int got = in.read(read, offset, Math.min(piece, data.length - offset));
                assertThat(got).isPositive();
                offset += got;
                piece = piece * 5 % 9_000 + 1;
            }
            assertThat(in.read()).isEqualTo(-1);
            assertThat(read).isEqualTo(data);
            in.seek(123_456);
            assertThat(in.read()).isEqualTo(data[123_456] & 0xff);
            byte[] positioned = new byte[50_000];
            in.readFully(200_000, positioned);
            assertThat(positioned).isEqualTo(java.util.Arrays.copyOfRange(data, 200_000, 250_000));
            assertThat(in.getPos()).isEqualTo(123_457);
        }
    }

    @Test
    void byteByByteWritesAndReadsCrossBufferBoundaries() throws Exception {
        Path file = new Path(base, "bytes");
        int values = 20_000; // 80,000 bytes: several 24 KiB write buffers and 16 KiB read buffers
        try (FSDataOutputStream out = fs.create(file, true)) {
            for (int value = 0; value < values; value++) {
                out.writeInt(value * 31); // DataOutput writes an int as four single bytes
            }
        }
        assertThat(fs.getFileStatus(file).getLen()).isEqualTo(4L * values);
        try (FSDataInputStream in = fs.open(file)) {
            for (int value = 0; value < values; value++) {
                assertThat(in.readInt()).isEqualTo(value * 31);
            }
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void statisticsCountBytesAndOperations() throws Exception {
        FileSystem.Statistics statistics = FileSystem.getStatistics(XtreemFSFileSystem.SCHEME, XtreemFSFileSystem.class);
        long writtenBefore = statistics.getBytesWritten();
        long readBefore = statistics.getBytesRead();
        int writeOpsBefore = statistics.getWriteOps();
        Path file = new Path(base, "counted");
        write(file, randomBytes(70_000, 3));
        try (FSDataInputStream in = fs.open(file)) {
            in.readFully(0, new byte[70_000]);
        }
        assertThat(statistics.getBytesWritten() - writtenBefore).isEqualTo(70_000);
        assertThat(statistics.getBytesRead() - readBefore).isEqualTo(70_000);
        assertThat(statistics.getWriteOps()).isGreaterThan(writeOpsBefore);
    }

    @Test
    void largeDirectoriesAreListedAcrossReaddirPages() throws Exception {
        Path directory = new Path(base, "large");
        int entries = 1100; // more than one page of the client's 1024 entries
        for (int index = 0; index < entries; index++) {
            fs.createNewFile(new Path(directory, "f" + index));
        }
        List<String> names = new ArrayList<>();
        RemoteIterator<FileStatus> iterator = fs.listStatusIterator(directory);
        while (iterator.hasNext()) {
            names.add(iterator.next().getPath().getName());
        }
        assertThat(names).hasSize(entries).doesNotHaveDuplicates().contains("f0", "f1099");
        assertThat(fs.listStatus(directory)).hasSize(entries);
        assertThat(fs.getContentSummary(directory).getFileCount()).isEqualTo(entries);
    }

    @Test
    void ownerPermissionAndTimesAreTheMrcs() throws Exception {
        Path file = new Path(base, "attributes");
        fs.create(file, new FsPermission((short) 0640), true, 4096, (short) 1, OBJECT, null).close();
        FileStatus status = fs.getFileStatus(file);
        assertThat(status.getPermission().toShort()).isEqualTo((short) (0640 & ~022));
        assertThat(status.getOwner()).isEqualTo(ClientOptions.currentUser().getUsername());
        assertThat(status.getGroup()).isEqualTo(String.valueOf(ClientOptions.currentUser().getGid()));
        fs.setPermission(file, new FsPermission((short) 0600));
        fs.setOwner(file, status.getOwner(), status.getGroup());
        fs.setTimes(file, 1_000_000_000_000L, -1);
        FileStatus changed = fs.getFileStatus(file);
        assertThat(changed.getPermission().toShort()).isEqualTo((short) 0600);
        assertThat(changed.getModificationTime()).isEqualTo(1_000_000_000_000L);
        assertThat(changed.getAccessTime()).isEqualTo(status.getAccessTime());
        assertThatThrownBy(() -> fs.setOwner(file, "no-such-user-name", null)).isInstanceOf(IOException.class)
                .hasMessageContaining("no-such-user-name");
    }

    @Test
    void theRootListsVolumesAndVolumesAreNotMadeOrRemovedThroughHadoop() throws Exception {
        Path root = new Path(cluster.fileSystemUri() + "/");
        assertThat(fs.listStatus(root)).extracting(status -> status.getPath().getName()).contains(SharedCluster.VOLUME);
        assertThat(fs.getFileStatus(root).isDirectory()).isTrue();
        assertThatThrownBy(() -> fs.mkdirs(new Path(cluster.fileSystemUri() + "/no-such-volume/a")))
                .isInstanceOf(FileNotFoundException.class).hasMessageContaining("no-such-volume");
        assertThatThrownBy(() -> fs.create(new Path(cluster.fileSystemUri() + "/file-in-root")))
                .isInstanceOf(IOException.class);
        Path volumeRoot = new Path(cluster.fileSystemUri() + "/" + SharedCluster.VOLUME);
        assertThatThrownBy(() -> fs.delete(volumeRoot, false)).isInstanceOf(PathIsNotEmptyDirectoryException.class);
        assertThat(fs.exists(base)).isTrue();
        // A recursive delete of a volume root empties it but leaves the volume.
        String other = "hadoop-other";
        try (Client client = Client.connect(cluster.launcher().dirSocketAddress(), ClientOptions.defaults())) {
            client.createVolume(org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName(other).setMode(0777).build());
        }
        Path otherRoot = new Path(cluster.fileSystemUri() + "/" + other);
        fs.create(new Path(otherRoot, "a/b")).close();
        assertThat(fs.delete(otherRoot, true)).isFalse();
        assertThat(fs.listStatus(otherRoot)).isEmpty();
        assertThat(fs.getFileStatus(otherRoot).isDirectory()).isTrue();
        // Renames stay inside a volume.
        Path file = new Path(base, "stays");
        fs.create(file).close();
        assertThatThrownBy(() -> fs.rename(file, new Path(otherRoot, "moved"))).isInstanceOf(IOException.class)
                .hasMessageContaining("different volumes");
    }

    @Test
    void renameReplacesAFileOnlyWhenConfigured() throws Exception {
        Path source = new Path(base, "rename-source");
        Path target = new Path(base, "rename-target");
        write(source, randomBytes(1000, 5));
        write(target, randomBytes(10, 6));
        assertThat(fs.rename(source, target)).as("HDFS's answer by default").isFalse();
        assertThat(fs.getFileStatus(target).getLen()).isEqualTo(10);
        Configuration overwriting = cluster.configuration();
        overwriting.setBoolean(XtreemFSOptions.RENAME_OVERWRITE, true);
        try (FileSystem posix = FileSystem.newInstance(URI.create(cluster.fileSystemUri()), overwriting)) {
            assertThat(posix.rename(source, target)).isTrue();
            assertThat(posix.exists(source)).isFalse();
            assertThat(posix.getFileStatus(target).getLen()).isEqualTo(1000);
        }
    }

    @Test
    void symbolicLinksOfOtherClientsAreFollowedLikeOpenDoes() throws Exception {
        Path target = new Path(base, "link-target");
        byte[] data = randomBytes(5000, 7);
        write(target, data);
        try (Client client = Client.connect(cluster.launcher().dirSocketAddress(), ClientOptions.defaults())) {
            org.xtreemfs.client.Volume volume = client.openVolume(SharedCluster.VOLUME);
            volume.mkdir("/fs-test/links", 0755);
            volume.symlink("../link-target", "/fs-test/links/relative");
            volume.symlink("/fs-test/link-target", "/fs-test/links/absolute");
            volume.symlink("nothing-here", "/fs-test/links/dangling");
        }
        Path links = new Path(base, "links");
        for (String name : List.of("relative", "absolute")) {
            FileStatus status = fs.getFileStatus(new Path(links, name));
            assertThat(status.isFile()).isTrue();
            assertThat(status.getLen()).as(name).isEqualTo(data.length);
            assertThat(status.getPath().getName()).isEqualTo(name);
            try (FSDataInputStream in = fs.open(new Path(links, name))) {
                byte[] read = new byte[data.length];
                in.readFully(read);
                assertThat(read).isEqualTo(data);
            }
        }
        assertThatThrownBy(() -> fs.getFileStatus(new Path(links, "dangling")))
                .isInstanceOf(FileNotFoundException.class).hasMessageContaining("symbolic link to nothing");
        assertThat(fs.listStatus(links)).extracting(FileStatus::getLen)
                .containsExactlyInAnyOrder((long) data.length, (long) data.length, (long) "nothing-here".length());
        assertThat(fs.delete(new Path(links, "relative"), false)).isTrue();
        assertThat(fs.exists(target)).as("deleting a link leaves its target").isTrue();
    }

    @Test
    void createNonRecursiveNeedsTheParent() throws Exception {
        Path orphan = new Path(base, "missing-parent/file");
        assertThatThrownBy(() -> fs.createNonRecursive(orphan, FsPermission.getFileDefault(),
                EnumSet.of(CreateFlag.CREATE), 4096, (short) 1, OBJECT, null).close())
                .isInstanceOf(FileNotFoundException.class);
        Path file = new Path(base, "non-recursive");
        fs.createNonRecursive(file, FsPermission.getFileDefault(), EnumSet.of(CreateFlag.CREATE), 4096, (short) 1,
                OBJECT, null).close();
        assertThat(fs.getFileStatus(file).isFile()).isTrue();
    }

    @Test
    void fileContextWorksThroughTheAbstractFileSystemBinding() throws Exception {
        FileContext context = FileContext.getFileContext(URI.create(cluster.fileSystemUri()), cluster.configuration());
        Path file = new Path(base, "through-file-context");
        byte[] data = randomBytes(100_000, 4);
        try (FSDataOutputStream out = context.create(file, EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE))) {
            out.write(data);
        }
        Path renamed = new Path(base, "through-file-context-renamed");
        context.rename(file, renamed);
        try (FSDataInputStream in = context.open(renamed)) {
            byte[] read = new byte[data.length];
            in.readFully(read);
            assertThat(read).isEqualTo(data);
        }
        assertThat(context.util().exists(file)).isFalse();
        assertThat(context.getFileStatus(renamed).getLen()).isEqualTo(data.length);
    }
}
