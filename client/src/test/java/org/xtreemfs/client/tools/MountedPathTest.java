package org.xtreemfs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.client.VolumeUrl;

class MountedPathTest {
    @TempDir
    Path temp;

    private static String rootLine() {
        return "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw";
    }

    private static String xtreemfsLine(int id, Path mountPoint, String source) {
        return id + " 22 0:" + id + " / " + mountPoint.toString().replace(" ", "\\040")
                + " rw,nosuid,nodev,relatime shared:" + id + " - fuse.xtreemfs " + source
                + " rw,user_id=0,group_id=0";
    }

    // A file deep inside a mount maps to the mount's DIR and volume and the path below the mount point.
    @Test
    void pathInsideAMountMapsToTheVolumeUrl() throws IOException {
        Path mount = Files.createDirectories(temp.resolve("mnt"));
        Files.createDirectories(mount.resolve("d/e"));
        Path file = Files.createFile(mount.resolve("d/e/file"));
        List<String> table = List.of(rootLine(), xtreemfsLine(40, mount, "xtreemfs@127.0.0.1:4711/vol"));
        VolumeUrl url = MountedPath.urlOf(file, table);
        assertThat(url).isEqualTo(new VolumeUrl("127.0.0.1", 4711, "vol", "/d/e/file"));
        assertThat(MountedPath.urlOf(mount, table).path()).isEqualTo("/");
        // Relative paths and ".." are resolved before the lookup.
        assertThat(MountedPath.urlOf(mount.resolve("d/e/../e/file"), table).path()).isEqualTo("/d/e/file");
    }

    // The mount point with the longest match wins, and of two mounts on one point the later one.
    @Test
    void theInnermostAndLatestMountWins() throws IOException {
        Path outer = Files.createDirectories(temp.resolve("outer"));
        Path inner = Files.createDirectories(outer.resolve("inner"));
        Path file = Files.createFile(inner.resolve("f"));
        List<String> table = List.of(rootLine(), xtreemfsLine(40, outer, "xtreemfs@dir-a:1/a"),
                xtreemfsLine(41, inner, "xtreemfs@dir-b:2/b"), xtreemfsLine(42, inner, "xtreemfs@dir-c:3/c"));
        assertThat(MountedPath.urlOf(file, table)).isEqualTo(new VolumeUrl("dir-c", 3, "c", "/f"));
    }

    // Mount points with spaces are octal-escaped in mountinfo.
    @Test
    void escapedMountPointsAreUnderstood() throws IOException {
        Path mount = Files.createDirectories(temp.resolve("with space"));
        Path file = Files.createFile(mount.resolve("f"));
        List<String> table = List.of(rootLine(), xtreemfsLine(40, mount, "xtreemfs@h:5/v"));
        assertThat(MountedPath.urlOf(file, table)).isEqualTo(new VolumeUrl("h", 5, "v", "/f"));
        // A mount that names its DIR's scheme (a TLS DIR: pbrpcs) gives the tool the same scheme.
        List<String> tlsTable = List.of(rootLine(), xtreemfsLine(40, mount, "xtreemfs@pbrpcs://h:5/v"));
        assertThat(MountedPath.urlOf(file, tlsTable)).isEqualTo(new VolumeUrl("h", 5, "v", "/f",
                java.util.Optional.of(org.xtreemfs.foundation.address.RpcScheme.PBRPCS)));
        assertThat(MountedPath.unescape("a\\040b\\134c")).isEqualTo("a b\\c");
    }

    // A local path on another file system is refused with its name and the file system it is on.
    @Test
    void aPathOutsideEveryXtreemfsMountIsRefusedByName() throws IOException {
        Path file = Files.createFile(temp.resolve("plain"));
        assertThatThrownBy(() -> MountedPath.urlOf(file, List.of(rootLine())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + file + "' is not on an XtreemFS mount")
                .hasMessageContaining("type ext4");
    }

    // Existing local names are paths; pbrpc:// and names that do not exist locally are URLs.
    @Test
    void localNamesArePathsEverythingElseAUrl() throws IOException {
        Path file = Files.createFile(temp.resolve("f"));
        assertThat(MountedPath.isLocalPath(file.toString())).isTrue();
        assertThat(MountedPath.isLocalPath("pbrpc://" + file)).isFalse();
        assertThat(MountedPath.isLocalPath("localhost/vol/file-that-does-not-exist-here")).isFalse();
        assertThat(XtfsutilMain.urlOf("localhost/vol/x")).isEqualTo(new VolumeUrl("localhost", 32638, "vol", "/x"));
    }

    // Through the tool: a local file that is not on an XtreemFS mount (this test's temporary folder) exits 2
    // and names the path; the real /proc/self/mountinfo is read.
    @Test
    void xtfsutilOnALocalFileOutsideAMountExitsWithUsageError() throws IOException {
        Path file = Files.createFile(temp.resolve("local-file"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = ToolRunner.execute(new XtfsutilMain(), new PrintWriter(out), new PrintWriter(err),
                file.toString());
        assertThat(exitCode).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(err.toString()).startsWith("xtfsutil: '" + file + "' is not on an XtreemFS mount");
        assertThat(out.toString()).isEmpty();
    }
}
