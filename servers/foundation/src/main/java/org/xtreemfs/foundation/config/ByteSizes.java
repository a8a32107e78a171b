package org.xtreemfs.foundation.config;

import java.util.Locale;

/**
 * Parses and prints byte sizes with binary units ({@code 4096}, {@code 128KiB}, {@code 1GiB}).
 * Decimal units (KB, MB) are rejected on purpose: their meaning is ambiguous.
 */
public final class ByteSizes {

    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

    private ByteSizes() {
    }

    /**
     * Parses a size such as {@code 128KiB}; the unit is case-insensitive.
     *
     * @throws IllegalArgumentException if the text is not a size or does not fit in a long
     */
    public static long parse(String text) {
        String trimmed = text.trim();
        int unitStart = 0;
        while (unitStart < trimmed.length() && Character.isDigit(trimmed.charAt(unitStart))) {
            unitStart++;
        }
        if (unitStart == 0) {
            throw new IllegalArgumentException("is not a size such as 4096, 128KiB or 1GiB");
        }
        String unit = trimmed.substring(unitStart).trim().toLowerCase(Locale.ROOT);
        int exponent = -1;
        for (int i = 0; i < UNITS.length; i++) {
            if (UNITS[i].toLowerCase(Locale.ROOT).equals(unit)) {
                exponent = i;
            }
        }
        if (unit.isEmpty()) {
            exponent = 0;
        }
        if (exponent < 0) {
            throw new IllegalArgumentException(
                    "has unknown unit \"" + unit + "\" (use B, KiB, MiB, GiB, TiB or PiB)");
        }
        try {
            long number = Long.parseLong(trimmed.substring(0, unitStart));
            return Math.multiplyExact(number, 1L << (10 * exponent));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("is too large");
        }
    }

    /** Prints with the largest binary unit that divides the size exactly: 131072 → 128KiB. */
    public static String format(long bytes) {
        int exponent = 0;
        long value = bytes;
        while (value != 0 && exponent < UNITS.length - 1 && value % 1024 == 0) {
            value /= 1024;
            exponent++;
        }
        return exponent == 0 ? Long.toString(bytes) : value + UNITS[exponent];
    }
}
