package org.xtreemfs.foundation.launcher;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options every server main accepts; settings themselves come from the schema. */
final class CommonOptions {

    @Option(names = "--config", paramLabel = "FILE",
            description = "Properties file with settings (see --print-settings).")
    Path configFile;

    @Option(names = "-D", paramLabel = "key=value",
            description = "Overrides one setting; repeatable; wins over --config.")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = "--pid-file", paramLabel = "FILE",
            description = "Writes the process id to FILE at start; removed on clean shutdown.")
    Path pidFile;

    @Option(names = "--print-settings",
            description = "Prints every setting as a documented properties file and exits.")
    boolean printSettings;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Shows this help and exits.")
    boolean help;

    @Option(names = {"-V", "--version"}, versionHelp = true,
            description = "Prints the version and exits.")
    boolean version;
}
