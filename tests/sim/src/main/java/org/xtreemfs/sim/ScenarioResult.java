package org.xtreemfs.sim;

import java.util.ArrayList;
import java.util.List;

/** Output of one scenario run: the report printed for people, the invariant checks, and CSV tables. */
final class ScenarioResult {
    /** One invariant: what it says, whether it held, and the measured numbers behind the verdict. */
    record Check(String statement, boolean holds, String measured) {}

    /** A CSV file to write: name (without directory), header and rows. */
    record CsvTable(String fileName, List<String> header, List<List<String>> rows) {}

    private final String scenario;
    private final List<String> lines = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();
    private final List<CsvTable> tables = new ArrayList<>();

    ScenarioResult(String scenario) {
        this.scenario = scenario;
    }

    String scenario() {
        return scenario;
    }

    void line(String format, Object... arguments) {
        lines.add(String.format(java.util.Locale.ROOT, format, arguments));
    }

    void check(String statement, boolean holds, String measuredFormat, Object... arguments) {
        checks.add(new Check(statement, holds, String.format(java.util.Locale.ROOT, measuredFormat, arguments)));
    }

    void table(CsvTable table) {
        tables.add(table);
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    List<Check> checks() {
        return List.copyOf(checks);
    }

    List<CsvTable> tables() {
        return List.copyOf(tables);
    }

    boolean passed() {
        return !checks.isEmpty() && checks.stream().allMatch(Check::holds);
    }

    String render() {
        StringBuilder text = new StringBuilder();
        text.append("== scenario ").append(scenario).append('\n');
        for (String line : lines) {
            text.append(line).append('\n');
        }
        for (Check check : checks) {
            text.append(check.holds() ? "[PASS] " : "[FAIL] ").append(check.statement()).append(": ")
                    .append(check.measured()).append('\n');
        }
        text.append(passed() ? "scenario " + scenario + " PASSED" : "scenario " + scenario + " FAILED").append('\n');
        return text.toString();
    }
}
