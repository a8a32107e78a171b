package org.xtreemfs.sim;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/** Finds scenario files, runs them by kind and writes their CSV tables. */
final class Scenarios {
    static final String SUFFIX = ".properties";

    enum Kind { OSD, FAST, INTERFERENCE }

    private Scenarios() {}

    /** NAME means {@code <directory>/NAME.properties}; anything else is taken as a file path. */
    static Path resolve(Path directory, String nameOrFile) {
        Path asFile = Path.of(nameOrFile);
        if (Files.isRegularFile(asFile)) {
            return asFile;
        }
        Path named = directory.resolve(nameOrFile + SUFFIX);
        if (Files.isRegularFile(named)) {
            return named;
        }
        throw new IllegalArgumentException("no scenario '" + nameOrFile + "': neither a file nor "
                + named.toAbsolutePath());
    }

    static List<Path> all(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(path -> path.getFileName().toString().endsWith(SUFFIX)).sorted().toList();
        } catch (IOException unreadable) {
            throw new UncheckedIOException("cannot list scenarios in " + directory.toAbsolutePath(), unreadable);
        }
    }

    static String name(Path file) {
        String fileName = file.getFileName().toString();
        return fileName.endsWith(SUFFIX) ? fileName.substring(0, fileName.length() - SUFFIX.length()) : fileName;
    }

    /** Runs the scenario with the given seed, or with the file's {@code seed} (default 1) when seed is null. */
    static ScenarioResult run(Path file, Long seed) {
        try (InputStream input = Files.newInputStream(file)) {
            return run(ScenarioConfig.read(file.toString(), input), name(file), seed);
        } catch (IOException unreadable) {
            throw new UncheckedIOException("cannot read scenario " + file, unreadable);
        }
    }

    static ScenarioResult run(ScenarioConfig config, String name, Long seed) {
        long effectiveSeed = seed != null ? seed : (long) config.number("seed", 1);
        return switch (config.choice("kind", Kind.class)) {
            case OSD -> new OsdScenario(config, effectiveSeed).run(name);
            case FAST -> new FastScenario(config, effectiveSeed).run(name);
            case INTERFERENCE -> new InterferenceScenario(config, effectiveSeed).run(name);
        };
    }

    static List<Path> writeTables(ScenarioResult result, Path directory) throws IOException {
        Files.createDirectories(directory);
        List<Path> written = new ArrayList<>();
        for (ScenarioResult.CsvTable table : result.tables()) {
            Path file = directory.resolve(table.fileName());
            try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                writer.write(String.join(",", table.header()));
                writer.write('\n');
                for (List<String> row : table.rows()) {
                    writer.write(String.join(",", row));
                    writer.write('\n');
                }
            }
            written.add(file);
        }
        Path report = directory.resolve(result.scenario().toLowerCase(Locale.ROOT) + "-report.txt");
        Files.writeString(report, result.render(), StandardCharsets.UTF_8);
        written.add(report);
        return written;
    }
}
