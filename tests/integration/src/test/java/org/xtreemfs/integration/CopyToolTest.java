package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.client.tools.CopyMain;
import org.xtreemfs.client.tools.MkfsMain;
import org.xtreemfs.client.tools.ToolRunner;

/** xtfscp put/get against a running cluster: contents survive the round trip; bad values are refused. */
class CopyToolTest {
    private static TestCluster cluster;

    @TempDir
    Path folder;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start(3);
        assertThat(run(new MkfsMain(), "--striping-width", "3", cluster.dirUrl() + "/copies").exitCode()).isZero();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static ToolRun run(Object tool, String... args) {
        return ToolRun.of(tool, args);
    }

    // A 3 MiB + 17 byte file (not a multiple of the object size) put into a striped volume comes back identical.
    @Test
    void putThenGetReturnsTheSameBytes() throws Exception {
        byte[] contents = new byte[3 * 1024 * 1024 + 17];
        new Random(3).nextBytes(contents);
        Path source = Files.write(folder.resolve("source"), contents);
        ToolRun put = run(new CopyMain(), "put", source.toString(), cluster.dirUrl() + "/copies/dir-less-file");
        assertThat(put.exitCode()).as(put.err()).isZero();
        assertThat(put.out()).contains("wrote " + contents.length + " bytes");

        Path target = folder.resolve("target");
        ToolRun get = run(new CopyMain(), "get", cluster.dirUrl() + "/copies/dir-less-file", target.toString());
        assertThat(get.exitCode()).as(get.err()).isZero();
        assertThat(Files.readAllBytes(target)).isEqualTo(contents);

        Files.write(source, new byte[] {1, 2, 3});
        assertThat(run(new CopyMain(), "put", source.toString(), cluster.dirUrl() + "/copies/dir-less-file")
                .exitCode()).isZero();
        assertThat(run(new CopyMain(), "get", cluster.dirUrl() + "/copies/dir-less-file", target.toString())
                .exitCode()).isZero();
        assertThat(Files.readAllBytes(target)).as("put replaces the old contents").containsExactly(1, 2, 3);
    }

    // A URL without a file, a bad mode and an unknown file each fail with the right exit code, naming the value.
    @Test
    void refusalsNameTheBadValue() throws Exception {
        Path source = Files.write(folder.resolve("small"), new byte[] {42});
        ToolRun volumeOnly = run(new CopyMain(), "put", source.toString(), cluster.dirUrl() + "/copies");
        assertThat(volumeOnly.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(volumeOnly.err()).contains("copies");

        ToolRun badMode = run(new CopyMain(), "put", "--mode", "999", source.toString(),
                cluster.dirUrl() + "/copies/x");
        assertThat(badMode.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(badMode.err()).contains("'999'");

        ToolRun unknown = run(new CopyMain(), "get", cluster.dirUrl() + "/copies/no-such-file",
                folder.resolve("out").toString());
        assertThat(unknown.exitCode()).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(unknown.err()).contains("no-such-file");

        // Issue 13: a missing LOCAL was an "internal error"; a folder left an empty remote file behind.
        ToolRun missing = run(new CopyMain(), "put", folder.resolve("no-such-local").toString(),
                cluster.dirUrl() + "/copies/from-missing");
        assertThat(missing.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(missing.err()).contains("no-such-local' does not exist").doesNotContain("internal error");
        ToolRun fromFolder = run(new CopyMain(), "put", folder.toString(), cluster.dirUrl() + "/copies/from-folder");
        assertThat(fromFolder.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(fromFolder.err()).contains("is a folder");
        for (String name : List.of("from-missing", "from-folder")) {
            ToolRun noRemote = run(new CopyMain(), "get", cluster.dirUrl() + "/copies/" + name,
                    folder.resolve("out").toString());
            assertThat(noRemote.exitCode()).as("no remote file %s was created", name).isEqualTo(ToolRunner.EXIT_FAILED);
            assertThat(noRemote.err()).contains("ENOENT");
        }
        assertThat(run(new CopyMain(), "put", source.toString(), cluster.dirUrl() + "/copies/small").exitCode())
                .isZero();
        ToolRun intoFolder = run(new CopyMain(), "get", cluster.dirUrl() + "/copies/small", folder.toString());
        assertThat(intoFolder.exitCode()).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(intoFolder.err()).contains(folder.toString()).doesNotContain("internal error");

        ToolRun noCommand = run(new CopyMain());
        assertThat(noCommand.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
    }
}
