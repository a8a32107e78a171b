package org.xtreemfs.foundation.config;

/**
 * How one kind of setting value is parsed, bounded and printed. Implementations are immutable.
 *
 * @param <T> the parsed value type
 */
public interface SettingType<T> {

    /**
     * Parses a trimmed raw value and checks its bounds.
     *
     * @throws IllegalArgumentException with a message that completes the sentence
     *     {@code key: "raw" ...}, e.g. {@code is out of range 1..65535}
     */
    T parse(String raw);

    /** Renders a value so that {@link #parse} returns an equal value. */
    String format(T value);

    /** Short human description of the accepted values, e.g. {@code integer 1..65535}. */
    String describe();
}
