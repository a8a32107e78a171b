package org.xtreemfs.client.tools;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and formats the human quantities of the tools: sizes ("128KiB", "200GiB"), rates ("150MiB/s") and
 * 4 KiB operation counts ("2000"). Only binary units are accepted; "MB", "GB", "K"... are refused with a
 * message naming the binary unit, because an earlier prototype silently mixed MB and MiB.
 *
 * <p>NOTE: the QoS library's {@code org.xtreemfs.qos.model.Units} (branch qos-sched) has the same rules and is
 * meant to be the single place for them; replace this class with it once it is on main. The semantics here
 * were kept identical so the switch changes no behaviour.
 */
public final class UnitParser {
    private static final Pattern QUANTITY = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)");
    private static final Pattern WHOLE_NUMBER = Pattern.compile("[0-9]+");
    private static final String[] BINARY_UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    private static final String SIZE_EXAMPLE = "expected a size such as 200GiB (units B, KiB, MiB, GiB, TiB, PiB)";
    private static final String RATE_EXAMPLE = "expected a rate such as 150MiB/s (units B, KiB, MiB, GiB, TiB, PiB"
            + " per second)";

    private UnitParser() {}

    /** Parses a size such as "200GiB", "1.5TiB" or "4096" (bytes) into bytes; {@code option} names the source. */
    public static long parseBytes(String option, String text) {
        return parseQuantity(option, text, requireText(option, text), SIZE_EXAMPLE);
    }

    /** Parses a rate such as "150MiB/s" or "1048576" (bytes per second) into bytes per second. */
    public static long parseBytesPerSecond(String option, String text) {
        String trimmed = requireText(option, text).trim();
        if (WHOLE_NUMBER.matcher(trimmed).matches()) {
            return parseQuantity(option, text, trimmed, RATE_EXAMPLE);
        }
        if (!trimmed.endsWith("/s")) {
            throw invalid(option, text, "is not a rate; " + RATE_EXAMPLE);
        }
        return parseQuantity(option, text, trimmed.substring(0, trimmed.length() - 2), RATE_EXAMPLE);
    }

    /** Parses a count of 4 KiB operations per second such as "2000" or "2000IOPS". */
    public static long parseIops(String option, String text) {
        String trimmed = requireText(option, text).trim();
        String digits = trimmed.toLowerCase(Locale.ROOT).endsWith("iops")
                ? trimmed.substring(0, trimmed.length() - 4).trim() : trimmed;
        if (!WHOLE_NUMBER.matcher(digits).matches()) {
            throw invalid(option, text, "is not a whole number of 4 KiB operations per second; expected e.g. 2000");
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException tooLarge) {
            throw invalid(option, text, "is too large");
        }
    }

    /** Formats bytes exactly, in the largest binary unit that divides the value ("1536MiB", "200GiB"). */
    public static String formatBytes(long bytes) {
        if (bytes <= 0) {
            return bytes + "B";
        }
        int unitIndex = 0;
        long value = bytes;
        while (unitIndex < BINARY_UNITS.length - 1 && value % 1024 == 0) {
            value /= 1024;
            unitIndex++;
        }
        return value + BINARY_UNITS[unitIndex];
    }

    private static String requireText(String option, String text) {
        if (text == null || text.isBlank()) {
            throw invalid(option, String.valueOf(text), "is empty");
        }
        return text;
    }

    private static long parseQuantity(String option, String original, String text, String example) {
        Matcher matcher = QUANTITY.matcher(text.trim());
        if (!matcher.matches()) {
            throw invalid(option, original, "is not a number with a unit; " + example);
        }
        long multiplier = binaryMultiplier(option, original, matcher.group(2), example);
        BigDecimal bytes = new BigDecimal(matcher.group(1)).multiply(BigDecimal.valueOf(multiplier));
        if (bytes.stripTrailingZeros().scale() > 0) {
            throw invalid(option, original, "is not a whole number of bytes");
        }
        try {
            return bytes.longValueExact();
        } catch (ArithmeticException tooLarge) {
            throw invalid(option, original, "is too large");
        }
    }

    private static long binaryMultiplier(String option, String original, String unit, String example) {
        for (int unitIndex = 0; unitIndex < BINARY_UNITS.length; unitIndex++) {
            if (BINARY_UNITS[unitIndex].equalsIgnoreCase(unit)) {
                return 1L << (10 * unitIndex);
            }
        }
        if (unit.isEmpty()) {
            return 1;
        }
        String prefix = unit.substring(0, 1).toUpperCase(Locale.ROOT);
        if (unit.length() <= 2 && "KMGTP".contains(prefix)) {
            throw invalid(option, original, "uses the decimal or ambiguous unit \"" + unit
                    + "\"; only binary units are accepted, write " + prefix + "iB");
        }
        throw invalid(option, original, "has the unknown unit \"" + unit + "\"; " + example);
    }

    private static IllegalArgumentException invalid(String option, String value, String problem) {
        return new IllegalArgumentException(option + ": '" + value + "' " + problem);
    }
}
