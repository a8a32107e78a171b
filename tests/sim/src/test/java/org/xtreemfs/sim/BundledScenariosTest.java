package org.xtreemfs.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class BundledScenariosTest {
    private static final Path SCENARIOS = Path.of("scenarios");

    static Stream<Path> scenarioFiles() {
        List<Path> files = Scenarios.all(SCENARIOS);
        assertThat(files).as("bundled scenarios").hasSizeGreaterThanOrEqualTo(4);
        return files.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarioFiles")
    void everyBundledScenarioMeetsItsInvariant(Path file) {
        // Proves each scenario file runs with its own seed and all of its invariant checks hold.
        ScenarioResult result = Scenarios.run(file, null);
        System.out.print(result.render());
        assertThat(result.checks()).isNotEmpty();
        assertThat(result.checks()).allSatisfy(check -> assertThat(check.holds()).as(check.statement() + ": "
                + check.measured()).isTrue());
    }
}
