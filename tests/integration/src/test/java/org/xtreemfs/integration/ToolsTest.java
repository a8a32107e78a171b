package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.tools.LsfsMain;
import org.xtreemfs.client.tools.MkfsMain;
import org.xtreemfs.client.tools.RmfsMain;
import org.xtreemfs.client.tools.ToolRunner;
import org.xtreemfs.client.tools.XtfsutilMain;

/** mkfs/lsfs/rmfs.xtreemfs and xtfsutil against a running cluster, including their refusals. */
class ToolsTest {
    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        // Three best-effort OSDs for the volumes without reservation (striped over 3), one sequential OSD for
        // the reserved one.
        cluster = TestCluster.start(List.of(Map.of(), Map.of(), Map.of(),
                Map.of("osd.usage.type", "sequential", "osd.device.class", "ssd")), Map.of());
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

    private static String url(String volumeAndPath) {
        return cluster.dirUrl() + "/" + volumeAndPath;
    }

    // A volume created without any QoS option is listed with its id and no reservation, and can be removed.
    @Test
    void mkfsLsfsRmfsWithoutQos() {
        ToolRun created = run(new MkfsMain(), url("plain"));
        assertThat(created.exitCode()).as(created.err()).isZero();
        assertThat(created.out()).contains("created volume 'plain'").contains("reservation none");

        ToolRun listed = run(new LsfsMain(), cluster.dirUrl());
        assertThat(listed.exitCode()).as(listed.err()).isZero();
        String line = listed.out().lines().filter(candidate -> candidate.startsWith("plain ")).findFirst().orElseThrow();
        assertThat(line).contains("RAID0 width 1 object size 1MiB").contains("none (best-effort)")
                .containsPattern("[0-9a-f]{8}-[0-9a-f]{4}-");

        ToolRun removed = run(new RmfsMain(), url("plain"));
        assertThat(removed.exitCode()).as(removed.err()).isZero();
        assertThat(run(new LsfsMain(), cluster.dirUrl()).out()).doesNotContain("plain ");
    }

    // The read routing of a replicated volume is chosen at mkfs, stored by the MRC and shown by lsfs and xtfsutil; an
    // unknown policy is refused naming it and the choices.
    @Test
    void mkfsReadRoutingIsStoredAndShown() {
        ToolRun created = run(new MkfsMain(), "--replicas", "3", "--read-routing", "round-robin", url("rr"));
        assertThat(created.exitCode()).as(created.err()).isZero();
        assertThat(created.out()).contains("chain of 3 replicas (writes enter at the head), read routing round-robin");
        String line = run(new LsfsMain(), cluster.dirUrl()).out().lines()
                .filter(candidate -> candidate.startsWith("rr ")).findFirst().orElseThrow();
        assertThat(line).containsPattern(" 3 +round-robin +none");
        ToolRun shown = run(new XtfsutilMain(), url("rr"));
        assertThat(shown.out()).contains("read routing round-robin");
        ToolRun noStealing = run(new MkfsMain(), "--replicas", "3", "--read-routing", "pattern-no-stealing",
                url("nosteal"));
        assertThat(noStealing.exitCode()).as(noStealing.err()).isZero();
        assertThat(run(new XtfsutilMain(), url("nosteal")).out()).contains("read routing pattern-no-stealing");
        ToolRun defaulted = run(new MkfsMain(), "--replicas", "2", url("patterned"));
        assertThat(defaulted.out()).contains("read routing pattern");
        ToolRun refused = run(new MkfsMain(), "--replicas", "3", "--read-routing", "sideways", url("sideways"));
        assertThat(refused.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(refused.err()).contains("--read-routing").contains("\"sideways\"").contains("pattern")
                .contains("pattern-no-stealing").contains("round-robin");
    }

    // A QoS volume carries its reservation in the units given, and the object size, as lsfs shows.
    @Test
    void mkfsWithQosAndStriping() {
        ToolRun created = run(new MkfsMain(), "--qos", "sequential", "--capacity", "2GiB", "--throughput",
                "15MiB/s", "--striping-width", "3", "--object-size", "256KiB", url("analytics"));
        assertThat(created.exitCode()).as(created.err()).isZero();
        assertThat(created.out()).contains("note: files are striped over the 1 OSD(s) of the admitted placement,"
                + " not the --striping-width 3 asked");
        ToolRun listed = run(new LsfsMain(), cluster.dirUrl());
        String line = listed.out().lines().filter(candidate -> candidate.startsWith("analytics ")).findFirst()
                .orElseThrow();
        // A reserved volume is striped over its admitted placement (here the one sequential OSD), whatever
        // --striping-width asked; the object size is kept.
        assertThat(line).contains("RAID0 width 1 object size 256KiB")
                .contains("sequential capacity 2GiB throughput 15MiB/s");
    }

    // xtfsutil shows the volume, the file id, the XLoc with every OSD's UUID and address, striping and size.
    @Test
    void xtfsutilShowsTheLayoutOfAFile() throws Exception {
        assertThat(run(new MkfsMain(), "-w", "3", url("layout")).exitCode()).isZero();
        String fileId;
        try (Client client = cluster.client()) {
            try (FileHandle file = client.openVolume("layout").open("/a/../data", OpenFlags.O_CREAT
                    | OpenFlags.O_WRONLY, 0644)) {
                file.write(0, new byte[300_000]);
                fileId = file.fileId();
            }
        }
        ToolRun shown = run(new XtfsutilMain(), url("layout/data"));
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("volume:").contains("layout (id ")
                .contains(fileId).contains("regular file").contains("300000 bytes")
                .contains("RAID0 width 3 object size 1MiB").contains("none (best-effort)");
        for (String osdUuid : cluster.osdUuids().subList(0, 3)) {
            assertThat(shown.out()).containsPattern("OSD " + osdUuid + " at 127\\.0\\.0\\.1:[0-9]+");
        }
        ToolRun directory = run(new XtfsutilMain(), url("layout"));
        assertThat(directory.exitCode()).as(directory.err()).isZero();
        assertThat(directory.out()).contains("directory");
    }

    // Unknown volumes, unknown files, duplicate and invalid names and bad URLs fail with a non-zero exit and
    // a message naming the bad value.
    @Test
    void refusalsNameTheBadValue() {
        ToolRun unknownVolume = run(new RmfsMain(), url("nosuchvolume"));
        assertThat(unknownVolume.exitCode()).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(unknownVolume.err()).contains("nosuchvolume");

        ToolRun unknownForXtfsutil = run(new XtfsutilMain(), url("nosuchvolume/file"));
        assertThat(unknownForXtfsutil.exitCode()).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(unknownForXtfsutil.err()).contains("nosuchvolume");

        assertThat(run(new MkfsMain(), url("twice")).exitCode()).isZero();
        ToolRun duplicate = run(new MkfsMain(), url("twice"));
        assertThat(duplicate.exitCode()).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(duplicate.err()).contains("twice");

        ToolRun unknownFile = run(new XtfsutilMain(), url("twice/missing/file"));
        assertThat(unknownFile.exitCode()).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(unknownFile.err()).contains("/missing/file").contains("ENOENT");

        ToolRun invalidName = run(new MkfsMain(), url("bad!name"));
        assertThat(invalidName.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(invalidName.err()).contains("'bad!name'");

        ToolRun badUrl = run(new LsfsMain(), "pbrpc://127.0.0.1:notaport");
        assertThat(badUrl.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(badUrl.err()).contains("'notaport'");

        // Issue 13: accepted before, and then every file of the volume failed with ENOSPC.
        // The MRC counts the OSDs a best-effort volume may use: 3 untyped ones, not the sequential fourth.
        ToolRun tooWide = run(new MkfsMain(), "--striping-width", "100", url("too-wide"));
        assertThat(tooWide.exitCode()).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(tooWide.err()).contains("striping width 100").contains("the 3 OSD(s) registered")
                .contains("of 4 registered");
        ToolRun onTheTypedOsdToo = run(new MkfsMain(), "--striping-width", "4", url("too-wide"));
        assertThat(onTheTypedOsdToo.exitCode()).as("4 OSDs are registered, but one is typed (sequential)")
                .isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(onTheTypedOsdToo.err()).contains("striping width 4").contains("the 3 OSD(s)");
        assertThat(run(new LsfsMain(), cluster.dirUrl()).out()).doesNotContain("too-wide");

        ToolRun badValue = run(new MkfsMain(), "--qos", "random", "--capacity", "5GB", "--iops", "100", url("v"));
        assertThat(badValue.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(badValue.err()).contains("'5GB'").contains("GiB");
    }
}
