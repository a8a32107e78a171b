package org.xtreemfs.qos.model;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The single place where human units are parsed and formatted. Internally the model counts capacity in
 * bytes, sequential throughput in bytes per second and random performance in 4 KiB operations per
 * second, all as {@code long}, so that adding and releasing reservations is exact.
 *
 * <p>Only binary prefixes are accepted (B, KiB, MiB, GiB, TiB, PiB; case-insensitive). Decimal units
 * (KB, MB, GB, TB, PB) and bare prefixes (K, M, G) are refused with a message naming the binary unit,
 * because the earlier prototype silently mixed MB and MiB. Fractions are allowed when the result is a
 * whole number of bytes ("1.5GiB" but not "0.3KiB").
 */
public final class Units {
  public static final long BYTES_PER_KIB = 1L << 10;
  public static final long BYTES_PER_MIB = 1L << 20;
  public static final long BYTES_PER_GIB = 1L << 30;
  public static final long BYTES_PER_TIB = 1L << 40;
  public static final long BYTES_PER_PIB = 1L << 50;
  /** The size of the operation that random performance (IOPS) is counted in. */
  public static final long RANDOM_OPERATION_BYTES = 4 * BYTES_PER_KIB;

  private static final Pattern QUANTITY = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)");
  private static final Pattern WHOLE_NUMBER = Pattern.compile("[0-9]+");
  private static final String[] BINARY_UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  private static final String RATE_SUFFIX = "/s";
  private static final String IOPS_SUFFIX = "iops";
  private static final String SIZE_EXAMPLE = "expected a size such as 200GiB (units B, KiB, MiB, GiB, TiB, PiB)";
  private static final String RATE_EXAMPLE = "expected a rate such as 150MiB/s (units B, KiB, MiB, GiB, TiB, PiB per second)";

  private Units() {}

  public static long kibibytes(long count) {
    return Math.multiplyExact(count, BYTES_PER_KIB);
  }

  public static long mebibytes(long count) {
    return Math.multiplyExact(count, BYTES_PER_MIB);
  }

  public static long gibibytes(long count) {
    return Math.multiplyExact(count, BYTES_PER_GIB);
  }

  public static long tebibytes(long count) {
    return Math.multiplyExact(count, BYTES_PER_TIB);
  }

  /** Parses a size such as "200GiB", "1.5TiB", "4096" (bytes) into bytes. */
  public static long parseBytes(String field, String text) {
    return parseQuantity(field, text, requireText(field, text), SIZE_EXAMPLE);
  }

  /** Parses a rate such as "150MiB/s" or "1048576" (bytes per second) into bytes per second. */
  public static long parseBytesPerSecond(String field, String text) {
    String trimmed = requireText(field, text).trim();
    if (WHOLE_NUMBER.matcher(trimmed).matches()) {
      return parseQuantity(field, text, trimmed, RATE_EXAMPLE);
    }
    if (!trimmed.endsWith(RATE_SUFFIX)) {
      throw new InvalidQosValueException(field, text, "is not a rate; " + RATE_EXAMPLE);
    }
    return parseQuantity(field, text, trimmed.substring(0, trimmed.length() - RATE_SUFFIX.length()), RATE_EXAMPLE);
  }

  /** Parses a count of 4 KiB operations per second such as "2000" or "2000IOPS". */
  public static long parseIops(String field, String text) {
    String trimmed = requireText(field, text).trim();
    String lower = trimmed.toLowerCase(Locale.ROOT);
    String digits = lower.endsWith(IOPS_SUFFIX)
        ? trimmed.substring(0, trimmed.length() - IOPS_SUFFIX.length()).trim()
        : trimmed;
    if (!WHOLE_NUMBER.matcher(digits).matches()) {
      throw new InvalidQosValueException(field, text,
          "is not a whole number of 4 KiB operations per second; expected e.g. 2000");
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException tooLarge) {
      throw new InvalidQosValueException(field, text, "is too large");
    }
  }

  /** Formats bytes exactly, in the largest binary unit that divides the value ("1536MiB", "200GiB"). */
  public static String formatBytes(long bytes) {
    if (bytes <= 0) {
      return bytes + "B";
    }
    int unitIndex = 0;
    long value = bytes;
    while (unitIndex < BINARY_UNITS.length - 1 && value % BYTES_PER_KIB == 0) {
      value /= BYTES_PER_KIB;
      unitIndex++;
    }
    return value + BINARY_UNITS[unitIndex];
  }

  /**
   * Bytes for people: exact when a KiB or larger unit divides the value ("200GiB", "1025KiB"), otherwise one
   * decimal in the largest unit not above it, marked as approximate ("~109.9MiB"). Not for values that must
   * parse back.
   */
  public static String describeBytes(long bytes) {
    if (bytes < BYTES_PER_KIB || bytes % BYTES_PER_KIB == 0) {
      return formatBytes(bytes);
    }
    int unitIndex = 0;
    long unit = 1;
    while (unitIndex < BINARY_UNITS.length - 1 && bytes / unit >= BYTES_PER_KIB) {
      unit *= BYTES_PER_KIB;
      unitIndex++;
    }
    return String.format(Locale.ROOT, "~%.1f%s", (double) bytes / unit, BINARY_UNITS[unitIndex]);
  }

  public static String formatBytesPerSecond(long bytesPerSecond) {
    return formatBytes(bytesPerSecond) + RATE_SUFFIX;
  }

  public static String formatIops(long iops) {
    return iops + "IOPS";
  }

  private static String requireText(String field, String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidQosValueException(field, String.valueOf(text), "is empty");
    }
    return text;
  }

  private static long parseQuantity(String field, String original, String text, String example) {
    Matcher matcher = QUANTITY.matcher(text.trim());
    if (!matcher.matches()) {
      throw new InvalidQosValueException(field, original, "is not a number with a unit; " + example);
    }
    long multiplier = binaryMultiplier(field, original, matcher.group(2), example);
    BigDecimal bytes = new BigDecimal(matcher.group(1)).multiply(BigDecimal.valueOf(multiplier));
    if (bytes.stripTrailingZeros().scale() > 0) {
      throw new InvalidQosValueException(field, original, "is not a whole number of bytes");
    }
    try {
      return bytes.longValueExact();
    } catch (ArithmeticException tooLarge) {
      throw new InvalidQosValueException(field, original, "is too large");
    }
  }

  private static long binaryMultiplier(String field, String original, String unit, String example) {
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
      throw new InvalidQosValueException(field, original, "uses the decimal or ambiguous unit \"" + unit
          + "\"; only binary units are accepted, write " + prefix + "iB (2^" + (10 * ("KMGTP".indexOf(prefix) + 1))
          + " bytes)");
    }
    throw new InvalidQosValueException(field, original, "has the unknown unit \"" + unit + "\"; " + example);
  }

  /** Parses one of an enum's constants case-insensitively, with '-' or '_' ("best-effort", "BEST_EFFORT"). */
  public static <E extends Enum<E>> E parseChoice(Class<E> type, String key, String text) {
    if (text != null) {
      String normalised = text.trim().replace('-', '_').toUpperCase(Locale.ROOT);
      for (E constant : type.getEnumConstants()) {
        if (constant.name().equals(normalised)) {
          return constant;
        }
      }
    }
    StringBuilder expected = new StringBuilder();
    for (E constant : type.getEnumConstants()) {
      expected.append(expected.length() == 0 ? "" : ", ").append(displayName(constant));
    }
    throw new InvalidQosValueException(key, String.valueOf(text), "is not one of " + expected);
  }

  /** The lower-case, hyphenated name used in configuration and on the command line ("best-effort"). */
  public static String displayName(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
