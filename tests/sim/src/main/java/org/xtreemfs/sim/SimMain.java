package org.xtreemfs.sim;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Command line entry: runs scenarios, prints their reports, writes CSVs, exits non-zero if an invariant fails. */
@Command(name = "xtreemfs-sim", mixinStandardHelpOptions = true,
        description = "Deterministic QoS simulator: runs scenario files against the real device models, fair queue "
                + "and replica routing, prints per-tenant throughput and latency, checks each scenario's invariant.")
public final class SimMain implements Callable<Integer> {

    @Option(names = "--scenario", paramLabel = "NAME|FILE",
            description = "Scenario to run: a name from the scenarios directory or a file path. Repeatable.")
    private List<String> scenarios = new ArrayList<>();

    @Option(names = "--all", description = "Run every scenario in the scenarios directory.")
    private boolean all;

    @Option(names = "--seed", description = "Seed for every random choice (default: the scenario's own seed).")
    private Long seed;

    @Option(names = "--out", paramLabel = "DIR", description = "Write CSV tables and reports here.")
    private Path outDirectory;

    @Option(names = "--scenarios", paramLabel = "DIR", defaultValue = "tests/sim/scenarios",
            description = "Directory of scenario files (default: ${DEFAULT-VALUE}).")
    private Path scenariosDirectory;

    @Option(names = "--list", description = "List the scenarios in the scenarios directory and exit.")
    private boolean list;

    /** Exit code for a bad scenario name, file or value (an invariant that fails exits with 1). */
    static final int EXIT_BAD_INPUT = 2;

    public static void main(String[] arguments) {
        CommandLine commandLine = new CommandLine(new SimMain());
        commandLine.setExecutionExceptionHandler((exception, command, parseResult) -> {
            if (exception instanceof IllegalArgumentException || exception instanceof java.io.UncheckedIOException) {
                command.getErr().println("xtreemfs-sim: " + exception.getMessage());
                return EXIT_BAD_INPUT;
            }
            throw exception;
        });
        System.exit(commandLine.execute(arguments));
    }

    @Override
    public Integer call() throws Exception {
        if (list) {
            Scenarios.all(scenariosDirectory).forEach(file -> System.out.println(Scenarios.name(file)));
            return 0;
        }
        List<Path> files = new ArrayList<>();
        if (all) {
            files.addAll(Scenarios.all(scenariosDirectory));
        }
        for (String scenario : scenarios) {
            files.add(Scenarios.resolve(scenariosDirectory, scenario));
        }
        if (files.isEmpty()) {
            System.err.println("xtreemfs-sim: nothing to run: give --scenario NAME|FILE or --all (see --help)");
            return EXIT_BAD_INPUT;
        }
        int failed = 0;
        for (Path file : files) {
            ScenarioResult result = Scenarios.run(file, seed);
            System.out.print(result.render());
            if (outDirectory != null) {
                for (Path written : Scenarios.writeTables(result, outDirectory)) {
                    System.out.println("wrote " + written);
                }
            }
            failed += result.passed() ? 0 : 1;
        }
        System.out.println(failed == 0 ? "all scenarios passed" : failed + " scenario(s) failed");
        return failed == 0 ? 0 : 1;
    }
}
