package org.xtreemfs.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The OSD scenario format's admission step, capacity changes, idle/burst phases and per-client cost units. */
class ScenarioFormatTest {
    private static final long SECOND = 1_000_000_000L;

    /** What makes {@link #oneReader}'s tenant reserved (the reservation invariant needs one), without admission. */
    private static final String RESERVED_1_MIB = """
            admission=skip
            tenant.reader.class=reserved
            tenant.reader.reservation.mib.per.second=1
            """;

    /** One closed-loop 256 KiB sequential reader on an HDD, FIFO only, 30 s; {@code extra} adds or overrides keys. */
    private static String oneReader(String extra) {
        return """
                kind=osd
                device=hdd
                cost=bytes
                duration.seconds=30
                warmup.seconds=0
                variants=fifo
                queue.fifo.requests.max=16
                tenants=reader
                region.spacing.gib=0
                tenant.default.pattern=sequential
                tenant.default.kind=read
                tenant.default.request.kib=256
                tenant.default.region.gib=20
                tenant.default.loop=closed
                tenant.default.class=best_effort
                invariant=reservations
                """ + extra;
    }

    private static List<List<String>> table(ScenarioResult result, String suffix) {
        return result.tables().stream().filter(t -> t.fileName().endsWith(suffix)).findFirst().orElseThrow().rows();
    }

    /** Cost the tenant received in each second, from the windows table. */
    private static long[] costPerSecond(ScenarioResult result, String variant, String tenant, int seconds) {
        long[] cost = new long[seconds];
        for (List<String> row : table(result, variant + "-windows.csv")) {
            if (row.get(0).equals(tenant)) {
                cost[Integer.parseInt(row.get(1))] = Long.parseLong(row.get(3));
            }
        }
        return cost;
    }

    private static double mean(long[] values, int from, int to) {
        double sum = 0;
        for (int index = from; index < to; index++) {
            sum += values[index];
        }
        return sum / (to - from);
    }

    @Test
    void phasesAlternateFromTheirOffsetAndCountOnlyWholeActiveWindows() {
        // Proves the on/off arithmetic: idle before the offset, on for 2 s, off for 3 s, repeating.
        Phases phases = new Phases(1 * SECOND, 2 * SECOND, 3 * SECOND);
        assertThat(phases.activeAt(0)).isFalse();
        assertThat(phases.activeAt(1 * SECOND)).isTrue();
        assertThat(phases.activeAt(3 * SECOND - 1)).isTrue();
        assertThat(phases.activeAt(3 * SECOND)).isFalse();
        assertThat(phases.activeAt(6 * SECOND)).isTrue();
        assertThat(phases.nextActiveNanos(0)).isEqualTo(1 * SECOND);
        assertThat(phases.nextActiveNanos(4 * SECOND)).isEqualTo(6 * SECOND);
        assertThat(phases.nextActiveNanos(7 * SECOND)).isEqualTo(7 * SECOND);
        assertThat(phases.activeThroughout(1 * SECOND, 2 * SECOND)).isTrue();
        assertThat(phases.activeThroughout(2 * SECOND, 3 * SECOND)).isTrue();
        assertThat(phases.activeThroughout(2 * SECOND, 4 * SECOND)).isFalse();
        assertThat(phases.activeThroughout(0, 1 * SECOND)).isFalse();
        assertThat(phases.activeNanosBetween(0, 11 * SECOND)).isEqualTo(4 * SECOND); // [1,3) [6,8); [11, ...) is after
        assertThat(phases.activeNanosBetween(2 * SECOND, 7 * SECOND)).isEqualTo(2 * SECOND);
        assertThat(Phases.ALWAYS.activeThroughout(5 * SECOND, 6 * SECOND)).isTrue();
        assertThat(Phases.ALWAYS.activeNanosBetween(0, 9 * SECOND)).isEqualTo(9 * SECOND);
    }

    @Test
    void anIdleTenantIssuesNothingAndAnActiveOneIssuesAtOnce() {
        // Proves idle phases reach the simulated clients: service in every on second; in the first off second at
        // most the one request that was outstanding when the phase ended (queue depth 1), then nothing.
        ScenarioResult result = Scenarios.run(ScenarioConfig.parse("phases", oneReader(RESERVED_1_MIB + """
                tenant.reader.on.seconds=2
                tenant.reader.off.seconds=3
                tenant.reader.phase.offset.seconds=1
                """)), "phases", 1L);
        long[] cost = costPerSecond(result, "fifo", "reader", 30);
        for (int second = 0; second < 30; second++) {
            boolean on = second >= 1 && (second - 1) % 5 < 2;
            boolean firstOff = second >= 1 && (second - 1) % 5 == 2;
            if (on) {
                assertThat(cost[second]).as("second %d is active", second).isGreaterThan(0);
            } else if (firstOff) {
                assertThat(cost[second]).as("second %d ends the last request", second).isLessThanOrEqualTo(256 * 1024);
            } else {
                assertThat(cost[second]).as("second %d is idle", second).isZero();
            }
        }
    }

    @Test
    void severalCapacityChangesApplyAgainstTheNominalDevice() {
        // Proves each factor of the schedule is against the nominal speed (2x slower, then nominal again), not
        // multiplied onto the previous one.
        ScenarioResult result = Scenarios.run(ScenarioConfig.parse("changes",
                oneReader(RESERVED_1_MIB + "device.slowdown.schedule=10:2,20:1\n")), "changes", 1L);
        long[] cost = costPerSecond(result, "fifo", "reader", 30);
        double before = mean(cost, 1, 10);
        double slow = mean(cost, 11, 20);
        double after = mean(cost, 21, 30);
        assertThat(slow / before).isBetween(0.4, 0.6);
        assertThat(after / before).isBetween(0.9, 1.1);
    }

    @Test
    void badCapacityChangesNameTheKey() {
        // Proves a mistake in the list is reported with the key and the item, and that the two forms exclude each other.
        assertThatThrownBy(() -> Scenarios.run(ScenarioConfig.parse("bad.properties",
                oneReader("device.slowdown.schedule=10:2,5:1\n")), "bad", 1L))
                .hasMessageContaining("bad.properties").hasMessageContaining("device.slowdown.schedule")
                .hasMessageContaining("5:1");
        assertThatThrownBy(() -> Scenarios.run(ScenarioConfig.parse("bad.properties",
                oneReader("device.slowdown.schedule=10x2\n")), "bad", 1L)).hasMessageContaining("10x2");
        assertThatThrownBy(() -> Scenarios.run(ScenarioConfig.parse("both.properties", oneReader("""
                device.slowdown.schedule=10:2
                device.slowdown.at.seconds=10
                device.slowdown.factor=2
                """)), "both", 1L)).hasMessageContaining("device.slowdown.at.seconds");
    }

    private static String reservationsHdd() throws IOException {
        return Files.readString(Path.of("scenarios", "reservations-hdd.properties"))
                .replace("duration.seconds=130", "duration.seconds=20").replace("warmup.seconds=10", "warmup.seconds=5");
    }

    @Test
    void aScenarioThatAdmissionRefusesFailsUnlessItSaysSo() throws IOException {
        // Proves the admission step can fail a scenario: reservations-hdd with its four 5 MiB/s volumes raised to
        // 9 MiB/s (36 MiB/s, more than the hdd7200 profile's 30.3 MiB/s from two streams on) fails on the
        // admission check unless it declares that it overbooks the profile.
        String overbooked = reservationsHdd().replace("tenant.reserved.reservation.mib.per.second=5",
                "tenant.reserved.reservation.mib.per.second=9");
        assertThat(overbooked).contains("reservation.mib.per.second=9").doesNotContain("admission=");
        ScenarioResult undeclared = Scenarios.run(ScenarioConfig.parse("undeclared", overbooked), "undeclared", 1L);
        assertThat(undeclared.passed()).isFalse();
        assertThat(undeclared.checks()).filteredOn(check -> !check.holds())
                .anySatisfy(check -> assertThat(check.statement()).contains("admission admits"));
        assertThat(undeclared.render()).contains("REFUSED").contains("largest admissible");
        String declared = overbooked + "\nadmission=refused\n";
        ScenarioResult asDeclared = Scenarios.run(ScenarioConfig.parse("declared", declared), "declared", 1L);
        assertThat(asDeclared.checks()).anySatisfy(check -> {
            assertThat(check.statement()).contains("admission refuses");
            assertThat(check.holds()).isTrue();
        });
        ScenarioResult skipped = Scenarios.run(ScenarioConfig.parse("skipped", overbooked + "\nadmission=skip\n"),
                "skipped", 1L);
        assertThat(skipped.checks()).noneSatisfy(check -> assertThat(check.statement()).contains("admission"));
        // The bundled scenario itself is admitted as it stands.
        ScenarioResult bundled = Scenarios.run(ScenarioConfig.parse("bundled", reservationsHdd()), "bundled", 1L);
        assertThat(bundled.checks()).anySatisfy(check -> {
            assertThat(check.statement()).contains("admission admits");
            assertThat(check.holds()).isTrue();
        });
    }

    @Test
    void expectingRefusalFailsWhenEverythingIsAdmitted() throws IOException {
        // Proves admission=refused is a claim that is checked, not a way to switch the step off.
        String ssd = Files.readString(Path.of("scenarios", "reservations-ssd.properties"))
                .replace("duration.seconds=30", "duration.seconds=8").replace("warmup.seconds=5", "warmup.seconds=2");
        ScenarioResult result = Scenarios.run(ScenarioConfig.parse("ssd", ssd + "\nadmission=refused\n"), "ssd", 1L);
        assertThat(result.checks()).anySatisfy(check -> {
            assertThat(check.statement()).contains("admission refuses");
            assertThat(check.holds()).isFalse();
        });
        assertThat(result.passed()).isFalse();
    }

    @Test
    void aRateInTheTenantsOwnUnitIsConvertedWithItsRequestSize() {
        // Proves per-client units: 40 requests/s of 256 KiB on a bytes-charged OSD reserve 10 MiB/s, and
        // 2 MiB/s of 64 KiB requests on an I/O-charged OSD reserve 32 requests/s x 16 I/Os = 512 I/Os per second.
        ScenarioResult bytes = Scenarios.run(ScenarioConfig.parse("bytes", oneReader("""
                duration.seconds=3
                admission=skip
                tenant.reader.class=reserved
                tenant.reader.reservation.iops=40
                """)), "bytes", 1L);
        assertThat(table(bytes, "fifo-tenants.csv").get(0).get(6)).isEqualTo("10.0000");
        ScenarioResult ios = Scenarios.run(ScenarioConfig.parse("ios", oneReader("""
                duration.seconds=3
                cost=ios
                admission=skip
                tenant.default.request.kib=64
                tenant.reader.class=reserved
                tenant.reader.reservation.mib.per.second=2
                """)), "ios", 1L);
        assertThat(table(ios, "fifo-tenants.csv").get(0).get(6)).isEqualTo("512.0000");
        assertThatThrownBy(() -> Scenarios.run(ScenarioConfig.parse("both.properties", oneReader("""
                tenant.reader.class=reserved
                tenant.reader.reservation.iops=40
                tenant.reader.reservation.mib.per.second=10
                """)), "both", 1L)).hasMessageContaining("tenant.reader.reservation.iops")
                .hasMessageContaining("tenant.reader.reservation.mib.per.second");
    }

    @Test
    void admissionAsksTheSchedulerInTheProfilesUnit() {
        // Proves the conversion into the scheduler's request: a 1 MiB sequential tenant reserving 150 MiB/s on an
        // I/O-charged random OSD asks for 150 x 256 = 38,400 random IOPS, which the SSD profile (56,866) admits once
        // but not twice.
        String twoReaders = oneReader("""
                duration.seconds=2
                device=ssd
                cost=ios
                tenants=reader*2
                tenant.default.request.kib=1024
                tenant.default.class=reserved
                tenant.default.reservation.mib.per.second=150
                """);
        ScenarioResult result = Scenarios.run(ScenarioConfig.parse("two", twoReaders), "two", 1L);
        assertThat(result.render()).contains("reader1      admitted random 20GiB 38400IOPS")
                .contains("reader2      REFUSED");
        assertThat(result.passed()).isFalse();
    }
}
