package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class PureLibraryTest {
    private static final List<String> PACKAGES = List.of("device", "wfq", "routing");
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);
    private static final List<String> BANNED = List.of("System.nanoTime", "System.currentTimeMillis", "Instant.now",
            "new Random(", "Math.random", "ThreadLocalRandom", "Thread", "synchronized", "java.io.", "java.nio.");

    @Test
    void deviceFairQueueAndRoutingUseTheJdkOnlyAndNoClockThreadOrHiddenRandomness() throws IOException {
        // Proves the rule that lets the OSD, the client and the simulator run the same code: pure, JDK-only.
        List<String> violations = new ArrayList<>();
        int files = 0;
        for (String name : PACKAGES) {
            Path directory = Path.of("src/main/java/org/xtreemfs/qos", name);
            try (Stream<Path> sources = Files.list(directory)) {
                for (Path source : sources.filter(path -> path.toString().endsWith(".java")).toList()) {
                    files++;
                    String text = Files.readString(source);
                    var imports = IMPORT.matcher(text);
                    while (imports.find()) {
                        String imported = imports.group(2);
                        if (!imported.startsWith("java.util") && !imported.startsWith("org.xtreemfs.qos.")) {
                            violations.add(source + " imports " + imported);
                        }
                    }
                    for (String banned : BANNED) {
                        if (text.contains(banned)) {
                            violations.add(source + " uses " + banned);
                        }
                    }
                }
            }
        }
        assertThat(files).isGreaterThan(10);
        assertThat(violations).isEmpty();
    }
}
