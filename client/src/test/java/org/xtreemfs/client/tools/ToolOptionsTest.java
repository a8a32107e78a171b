package org.xtreemfs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import picocli.CommandLine;

class ToolOptionsTest {
    private record Result(int exitCode, String out, String err) {}

    private static Result run(Object tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = ToolRunner.execute(tool, new PrintWriter(out), new PrintWriter(err), args);
        return new Result(exitCode, out.toString(), err.toString());
    }

    private static Volume mkfsRequest(String... args) {
        MkfsMain mkfs = new MkfsMain();
        new CommandLine(mkfs).registerConverter(org.xtreemfs.client.VolumeUrl.class,
                org.xtreemfs.client.VolumeUrl::parse).parseArgs(args);
        return mkfs.volumeRequest();
    }

    // Every tool answers --help with exit 0 and its usage.
    @Test
    void everyToolHasHelp() {
        for (Object tool : new Object[] {new MkfsMain(), new RmfsMain(), new LsfsMain(), new XtfsutilMain()}) {
            Result result = run(tool, "--help");
            assertThat(result.exitCode()).isZero();
            assertThat(result.out()).contains("Usage:").contains("--timeout-ms");
        }
        assertThat(run(new MkfsMain(), "--help").out()).contains("--qos").contains("--throughput")
                .contains("--weight").contains("--limit");
        assertThat(run(new XtfsutilMain(), "--help").out()).contains("--weight").contains("--limit")
                .contains("--set-replication").contains("--fill-rate");
    }

    // Without QoS options mkfs asks for a plain volume with the default striping policy (mission §6): the object
    // size stays unset (0), so the MRC, the one place the default lives, chooses it.
    @Test
    void mkfsWithoutQosHasNoReservation() {
        Volume volume = mkfsRequest("localhost/plain");
        assertThat(volume.getName()).isEqualTo("plain");
        assertThat(volume.hasReservation()).isFalse();
        assertThat(volume.getMode()).isEqualTo(0777);
        assertThat(volume.getDefaultStripingPolicy().getObjectSizeBytes()).isZero();
        assertThat(volume.getDefaultStripingPolicy().getWidth()).isEqualTo(1);
    }

    // The mission's examples give exact reservations in bytes, MiB/s and IOPS.
    @Test
    void mkfsQosExamplesFromTheMission() {
        Volume analytics = mkfsRequest("--qos", "sequential", "--capacity", "200GiB", "--throughput", "150MiB/s",
                "-w", "3", "--object-size", "1MiB", "-m", "0750", "localhost/analytics");
        assertThat(analytics.getReservation().getType()).isEqualTo(QosType.SEQUENTIAL);
        assertThat(analytics.getReservation().getCapacityBytes()).isEqualTo(200L << 30);
        assertThat(analytics.getReservation().getThroughputBytesPerSecond()).isEqualTo(150L << 20);
        assertThat(analytics.getDefaultStripingPolicy().getWidth()).isEqualTo(3);
        assertThat(analytics.getDefaultStripingPolicy().getObjectSizeBytes()).isEqualTo(1 << 20);
        assertThat(analytics.getMode()).isEqualTo(0750);
        Volume db = mkfsRequest("--qos", "random", "--capacity", "50GiB", "--iops", "2000", "localhost/db");
        assertThat(db.getReservation().getType()).isEqualTo(QosType.RANDOM);
        assertThat(db.getReservation().getIops()).isEqualTo(2000);
        Volume scratch = mkfsRequest("--qos", "best-effort", "localhost/scratch");
        assertThat(scratch.getReservation().getType()).isEqualTo(QosType.BEST_EFFORT);
    }

    // Inconsistent or bad option values exit 2 before any server is contacted, naming option and value.
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--qos fast localhost/v|--qos: 'fast'",
            "--qos sequential --capacity 1GiB localhost/v|needs --throughput",
            "--qos sequential --throughput 10MiB/s localhost/v|needs --capacity",
            "--qos random --capacity 1GiB localhost/v|needs --iops",
            "--qos random --capacity 1GiB --iops 10 --throughput 1MiB/s localhost/v|--throughput: '1MiB/s' is not allowed on a random",
            "--qos cold --capacity 1GiB --iops 5 localhost/v|--iops: '5' is not allowed on a cold",
            "--qos sequential --capacity 0GiB --throughput 1MiB/s localhost/v|--capacity: '0GiB' must be positive",
            "--capacity 1GiB localhost/v|--capacity: '1GiB' needs --qos",
            "--qos sequential --capacity 200GB --throughput 1MiB/s localhost/v|'200GB'",
            "--qos sequential --capacity 1GiB --throughput 10MiB/s --weight 0 localhost/v|--weight: '0' must be an integer from 1 to 1000",
            "--qos random --capacity 1GiB --iops 10 --weight x localhost/v|--weight: 'x' is not an integer",
            "--qos sequential --capacity 1GiB --throughput 10MiB/s --limit 5MiB/s localhost/v|--limit: '5MiB/s' is below the reservation's 10MiB/s",
            "--qos random --capacity 1GiB --iops 10 --limit 1MiB/s localhost/v|--limit: '1MiB/s' is not a whole number",
            "--qos best-effort --weight 3 localhost/v|--weight: '3' needs --capacity on a best-effort volume",
            "--qos best-effort --limit 5MiB/s localhost/v|--limit: '5MiB/s' needs --capacity",
            "--weight 2 localhost/v|--weight: '2' needs --qos",
            "--object-size 1000 localhost/v|--object-size: '1000'",
            "--object-size 32MiB localhost/v|--object-size: '32MiB' is not a valid object size",
            "--object-size 16MiB -w 129 localhost/v|--striping-width: '129'",
            "-w 0 localhost/v|--striping-width: '0'",
            "-m 0999 localhost/v|--mode: '0999'",
            "localhost/v/sub/dir|names a path inside the volume",
            "localhost:99999/v|invalid URL 'localhost:99999/v'",
            "localhost/bad!name|invalid volume name 'bad!name'",
            "localhost|names no volume"})
    void mkfsRefusesBadValues(String arguments, String expectedMessage) {
        Result result = run(new MkfsMain(), arguments.split(" "));
        assertThat(result.exitCode()).as(result.err()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(result.err()).startsWith("mkfs.xtreemfs: ").contains(expectedMessage);
    }

    // xtfsutil's reservation options are refused without --set-reservation, and --set-reservation needs a figure;
    // both exit 2 before any server is contacted.
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--capacity 1GiB localhost/v|go with --set-reservation",
            "--set-reservation localhost/v|needs at least one of",
            "--free --set-reservation --iops 5 localhost|exclude each other",
            "--limit 5MiB/s localhost/v|--limit: '5MiB/s': --capacity, --throughput, --iops, --weight and --limit go with",
            "--set-reservation --weight 1001 localhost/v|--weight: '1001' must be an integer from 1 to 1000",
            "--set-reservation --limit fast localhost/v|--limit: 'fast'",
            "--free localhost:x|'localhost:x'",
            "--set-replication 9 localhost/v/f|--set-replication: 9 is not a valid replica count",
            "--set-replication 0 localhost/v|between 1 and 8",
            "--fill-rate 8MiB/s localhost/v/f|--fill-rate goes with --set-replication",
            "--set-replication 2 --fill-rate fast localhost/v/f|--fill-rate",
            "--set-replication 2 --set-reservation --iops 5 localhost/v|exclude each other"})
    void xtfsutilRefusesBadReservationOptions(String arguments, String expectedMessage) {
        Result result = run(new XtfsutilMain(), arguments.split(" "));
        assertThat(result.exitCode()).as(result.err()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(result.err()).startsWith("xtfsutil: ").contains(expectedMessage);
    }

    // A change keeps the figures not given, replaces the given ones exactly, and the model's rules name the option.
    @Test
    void changedReservationsFollowTheModel() {
        Reservation sequential = Reservation.sequential(1L << 30, 10L << 20);
        assertThat(ReservationOptions.of(null, "20MiB/s", null).changed(sequential))
                .isEqualTo(Reservation.sequential(1L << 30, 20L << 20));
        assertThat(ReservationOptions.of("2GiB", null, null).changed(sequential))
                .isEqualTo(Reservation.sequential(2L << 30, 10L << 20));
        assertThatThrownBy(() -> ReservationOptions.of(null, "1MiB/s", null).changed(Reservation.random(1L << 30, 100)))
                .hasMessageStartingWith("--throughput: '1MiB/s' is not allowed on a random reservation");
        assertThatThrownBy(() -> ReservationOptions.of(null, "0MiB/s", null).changed(sequential))
                .hasMessageStartingWith("--throughput: '0MiB/s'");
    }

    // mkfs puts --weight and --limit into the reservation, the limit in the type's unit.
    @Test
    void mkfsWeightAndLimit() {
        QosReservation analytics = mkfsRequest("--qos", "sequential", "--capacity", "200GiB", "--throughput",
                "150MiB/s", "--weight", "3", "--limit", "300MiB/s", "localhost/analytics").getReservation();
        assertThat(analytics.getWeight()).isEqualTo(3);
        assertThat(analytics.getLimitThroughputBytesPerSecond()).isEqualTo(300L << 20);
        assertThat(analytics.getLimitIops()).isZero();
        QosReservation db = mkfsRequest("--qos", "random", "--capacity", "50GiB", "--iops", "2000", "--limit", "2000",
                "localhost/db").getReservation();
        assertThat(db.getLimitIops()).isEqualTo(2000);
        assertThat(db.getWeight()).as("the default weight is not sent").isZero();
        QosReservation scratch = mkfsRequest("--qos", "best-effort", "--capacity", "1GiB", "--weight", "2",
                "--limit", "20MiB/s", "localhost/scratch").getReservation();
        assertThat(scratch.getWeight()).isEqualTo(2);
        assertThat(scratch.getLimitThroughputBytesPerSecond()).isEqualTo(20L << 20);
        assertThat(Describe.reservation(analytics)).isEqualTo("sequential capacity 200GiB throughput 150MiB/s weight 3"
                + " limit 300MiB/s");
        assertThat(Describe.reservation(db)).endsWith("iops 2000 limit 2000 iops");
    }

    // An online change keeps the weight and limit not given, "--limit 0" removes the limit, and a kept limit
    // that the new figures outgrow is refused saying it is the volume's, not a typed value.
    @Test
    void changedWeightsAndLimitsFollowTheModel() {
        Reservation current = new Reservation(ReservationType.SEQUENTIAL, 1L << 30, 10L << 20, 0, 2, 40L << 20, 0);
        assertThat(ReservationOptions.of(null, "20MiB/s", null).changed(current))
                .isEqualTo(new Reservation(ReservationType.SEQUENTIAL, 1L << 30, 20L << 20, 0, 2, 40L << 20, 0));
        assertThat(ReservationOptions.of(null, null, null, "5", null).changed(current))
                .isEqualTo(new Reservation(ReservationType.SEQUENTIAL, 1L << 30, 10L << 20, 0, 5, 40L << 20, 0));
        assertThat(ReservationOptions.of(null, null, null, null, "0").changed(current))
                .isEqualTo(new Reservation(ReservationType.SEQUENTIAL, 1L << 30, 10L << 20, 0, 2, 0, 0));
        assertThatThrownBy(() -> ReservationOptions.of(null, "50MiB/s", null).changed(current))
                .hasMessage("the volume's limit \"40MiB/s\" is below the reservation's 50MiB/s; a limit must be at"
                        + " least the reservation; give --limit as well (0 removes it)");
        assertThatThrownBy(() -> ReservationOptions.of(null, "50MiB/s", null, null, "45MiB/s").changed(current))
                .hasMessageStartingWith("--limit: '45MiB/s' is below the reservation's 50MiB/s");
        Reservation random = new Reservation(ReservationType.RANDOM, 1L << 30, 0, 100, 1, 0, 0);
        assertThat(ReservationOptions.of(null, null, null, null, "300").changed(random).limitIops()).isEqualTo(300);
    }

    // The other tools refuse bad URLs with exit 2 and the URL in the message.
    @Test
    void otherToolsRefuseBadUrls() {
        Result rmfs = run(new RmfsMain(), "ftp://host/vol");
        assertThat(rmfs.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(rmfs.err()).contains("'ftp://host/vol'");
        Result lsfs = run(new LsfsMain(), "localhost/vol");
        assertThat(lsfs.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(lsfs.err()).contains("'localhost/vol'");
        Result xtfsutil = run(new XtfsutilMain(), "localhost:x/vol/file");
        assertThat(xtfsutil.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(xtfsutil.err()).contains("'localhost:x/vol/file'");
        assertThat(run(new RmfsMain()).exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
    }

    // A bad connection setting is refused naming the option.
    @Test
    void badTimeoutIsRefused() {
        Result result = run(new LsfsMain(), "--timeout-ms", "0", "localhost");
        assertThat(result.exitCode()).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(result.err()).contains("--timeout-ms: '0'");
    }

    // The file type names of xtfsutil follow the S_IFMT bits.
    @Test
    void fileTypes() {
        assertThat(XtfsutilMain.fileType(0100644)).isEqualTo("regular file");
        assertThat(XtfsutilMain.fileType(040755)).isEqualTo("directory");
        assertThat(XtfsutilMain.fileType(0120777)).isEqualTo("symbolic link");
        assertThatThrownBy(() -> mkfsRequest("--qos", "random", "localhost/v")).hasMessageContaining("--capacity");
    }
}
