package org.xtreemfs.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ScenarioBehaviourTest {
    private static String reservations() throws IOException {
        return Files.readString(Path.of("scenarios", "reservations-hdd.properties"))
                .replace("duration.seconds=130", "duration.seconds=40");
    }

    @Test
    void sameSeedGivesIdenticalResultsAndAnotherSeedDiffers() throws IOException {
        // Proves the simulator is deterministic from its seed and that the seed actually drives it.
        ScenarioConfig config = ScenarioConfig.parse("short", reservations());
        ScenarioResult first = Scenarios.run(config, "short", 7L);
        ScenarioResult again = Scenarios.run(config, "short", 7L);
        ScenarioResult other = Scenarios.run(config, "short", 8L);
        assertThat(again.tables()).isEqualTo(first.tables());
        assertThat(again.render()).isEqualTo(first.render());
        assertThat(other.tables()).isNotEqualTo(first.tables());
    }

    @Test
    void reservationsBeyondCapacityFailTheInvariant() throws IOException {
        // Proves the reservation check can fail: 4 x 15 MiB/s cannot fit a disk delivering about 40 MiB/s.
        String text = reservations().replace("tenant.reserved.reservation.mib.per.second=5",
                "tenant.reserved.reservation.mib.per.second=15").replace("tenant.reserved.offered.mib.per.second=10",
                "tenant.reserved.offered.mib.per.second=30");
        ScenarioResult result = Scenarios.run(ScenarioConfig.parse("overbooked", text), "overbooked", null);
        assertThat(result.passed()).isFalse();
        assertThat(result.checks()).anySatisfy(check -> {
            assertThat(check.statement()).contains("every reservation holds");
            assertThat(check.holds()).isFalse();
        });
    }

    @Test
    void thePacingOfBufferedWritesIsWorkConservingWhenItSeesTheWriteBack() throws IOException {
        // Proves the fair policy, told the write-back's level as the OSD tells it, uses the capacity the sorted
        // flushes give (the pacing at the profile's rate alone wasted it) while every reservation still holds.
        String text = Files.readString(Path.of("scenarios", "buffered-writes-work-conserving.properties"));
        ScenarioResult observed = Scenarios.run(ScenarioConfig.parse("observed", text), "observed", null);
        ScenarioResult ignored = Scenarios.run(ScenarioConfig.parse("ignored",
                text.replace("queue.pacing.writeBack=observed", "queue.pacing.writeBack=ignored")), "ignored", null);
        assertThat(observed.passed()).as(String.join("\n", observed.lines())).isTrue();
        assertThat(ignored.passed()).isTrue();
        Map<String, Double> fair = achieved(observed, "observed-fair");
        Map<String, Double> fairBlind = achieved(ignored, "ignored-fair");
        Map<String, Double> fifo = achieved(observed, "observed-fifo");
        double whole = fair.values().stream().mapToDouble(Double::doubleValue).sum();
        double wholeBlind = fairBlind.values().stream().mapToDouble(Double::doubleValue).sum();
        double wholeFifo = fifo.values().stream().mapToDouble(Double::doubleValue).sum();
        assertThat(wholeBlind).as("paced at the profile's 40 IOPS (80 in the full-speed model)").isLessThan(90);
        assertThat(whole).as("the whole OSD under the fair queue, against FIFO's %.1f", wholeFifo)
                .isGreaterThan(2 * wholeBlind).isGreaterThan(0.65 * wholeFifo);
        assertThat(fair.get("berand")).as("the best-effort writer").isGreaterThan(5 * fairBlind.get("berand"));
    }

    /** Achieved cost per second per tenant from a result's {@code <prefix>-tenants.csv}. */
    private static Map<String, Double> achieved(ScenarioResult result, String prefix) {
        ScenarioResult.CsvTable table = result.tables().stream()
                .filter(candidate -> candidate.fileName().equals(prefix + "-tenants.csv")).findFirst().orElseThrow();
        int tenant = table.header().indexOf("tenant");
        int achieved = table.header().indexOf("achieved");
        Map<String, Double> byTenant = new TreeMap<>();
        for (List<String> row : table.rows()) {
            byTenant.put(row.get(tenant), Double.parseDouble(row.get(achieved)));
        }
        return byTenant;
    }

    @Test
    void badScenarioValuesNameTheKey() {
        // Proves a scenario mistake is reported with the offending key and file, not as a stack of nulls.
        ScenarioConfig config = ScenarioConfig.parse("broken.properties", "kind=osd\ncost=litres\n");
        assertThatThrownBy(() -> Scenarios.run(config, "broken", null))
                .hasMessageContaining("broken.properties").hasMessageContaining("cost").hasMessageContaining("litres");
        ScenarioConfig missing = ScenarioConfig.parse("missing.properties", "kind=fast\n");
        assertThatThrownBy(() -> Scenarios.run(missing, "missing", null)).hasMessageContaining("chunk.mib");
    }
}
