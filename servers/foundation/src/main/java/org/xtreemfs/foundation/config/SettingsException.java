package org.xtreemfs.foundation.config;

import java.util.List;

/**
 * Start-up configuration is invalid. Each problem names the key and, where there is one, the bad
 * value, e.g. {@code osd.port: "70000" is out of range 0..65535}; the message joins them with
 * {@code "; "} so it fits on one line.
 */
public final class SettingsException extends Exception {

    private final List<String> problems;

    public SettingsException(List<String> problems) {
        super(String.join("; ", problems));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a settings error needs at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    public SettingsException(String problem) {
        this(List.of(problem));
    }

    public List<String> problems() {
        return problems;
    }
}
