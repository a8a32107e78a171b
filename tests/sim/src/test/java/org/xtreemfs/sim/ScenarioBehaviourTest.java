package org.xtreemfs.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    void badScenarioValuesNameTheKey() {
        // Proves a scenario mistake is reported with the offending key and file, not as a stack of nulls.
        ScenarioConfig config = ScenarioConfig.parse("broken.properties", "kind=osd\ncost=litres\n");
        assertThatThrownBy(() -> Scenarios.run(config, "broken", null))
                .hasMessageContaining("broken.properties").hasMessageContaining("cost").hasMessageContaining("litres");
        ScenarioConfig missing = ScenarioConfig.parse("missing.properties", "kind=fast\n");
        assertThatThrownBy(() -> Scenarios.run(missing, "missing", null)).hasMessageContaining("chunk.mib");
    }
}
