package org.xtreemfs.foundation.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The built-in {@link SettingType}s. Enum values are written in lower case in files. */
public final class SettingTypes {

    private SettingTypes() {
    }

    public static SettingType<Integer> integer(int min, int max) {
        checkBounds(min, max);
        return new IntegerType(min, max);
    }

    public static SettingType<Long> longInteger(long min, long max) {
        checkBounds(min, max);
        return new LongType(min, max);
    }

    /** Byte counts written as {@code 4096}, {@code 128KiB}, {@code 2GiB}; bounds in bytes. */
    public static SettingType<Long> byteSize(long minBytes, long maxBytes) {
        checkBounds(minBytes, maxBytes);
        return new ByteSizeType(minBytes, maxBytes);
    }

    /** Any string, including the empty string when {@code allowEmpty}. */
    public static SettingType<String> string(boolean allowEmpty) {
        return new StringType(allowEmpty);
    }

    /** Empty (not set) or a string of at least {@code lengthMin} characters (shared secrets). */
    public static SettingType<String> optionalText(int lengthMin) {
        return new MinimumLengthStringType(lengthMin);
    }

    public static SettingType<Boolean> bool() {
        return BooleanType.INSTANCE;
    }

    public static <E extends Enum<E>> SettingType<E> enumeration(Class<E> enumClass) {
        return new EnumType<>(enumClass);
    }

    public static SettingType<Path> path() {
        return PathType.INSTANCE;
    }

    public static SettingType<HostPort> hostPort() {
        return HostPortType.INSTANCE;
    }

    private static void checkBounds(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("empty range " + min + ".." + max);
        }
    }

    /** Parses a decimal integer and checks {@code min <= value <= max}. */
    private static long parseInRange(String raw, long min, long max) {
        long value;
        try {
            value = Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("is not an integer");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException("is out of range " + min + ".." + max);
        }
        return value;
    }

    private record IntegerType(int min, int max) implements SettingType<Integer> {
        @Override
        public Integer parse(String raw) {
            return (int) parseInRange(raw, min, max);
        }

        @Override
        public String format(Integer value) {
            return value.toString();
        }

        @Override
        public String describe() {
            return "integer " + min + ".." + max;
        }
    }

    private record LongType(long min, long max) implements SettingType<Long> {
        @Override
        public Long parse(String raw) {
            return parseInRange(raw, min, max);
        }

        @Override
        public String format(Long value) {
            return value.toString();
        }

        @Override
        public String describe() {
            return "integer " + min + ".." + max;
        }
    }

    private record ByteSizeType(long minBytes, long maxBytes) implements SettingType<Long> {
        @Override
        public Long parse(String raw) {
            long value = ByteSizes.parse(raw);
            if (value < minBytes || value > maxBytes) {
                throw new IllegalArgumentException("is out of range " + ByteSizes.format(minBytes)
                        + ".." + ByteSizes.format(maxBytes));
            }
            return value;
        }

        @Override
        public String format(Long value) {
            return ByteSizes.format(value);
        }

        @Override
        public String describe() {
            return "size " + ByteSizes.format(minBytes) + ".." + ByteSizes.format(maxBytes);
        }
    }

    private record MinimumLengthStringType(int lengthMin) implements SettingType<String> {
        @Override
        public String parse(String raw) {
            if (!raw.isEmpty() && raw.length() < lengthMin) {
                throw new IllegalArgumentException("is shorter than " + lengthMin + " characters (too short)");
            }
            return raw;
        }

        @Override
        public String format(String value) {
            return value;
        }

        @Override
        public String describe() {
            return "empty, or a string of at least " + lengthMin + " characters";
        }
    }

    private record StringType(boolean allowEmpty) implements SettingType<String> {
        @Override
        public String parse(String raw) {
            if (!allowEmpty && raw.isEmpty()) {
                throw new IllegalArgumentException("must not be empty");
            }
            return raw;
        }

        @Override
        public String format(String value) {
            return value;
        }

        @Override
        public String describe() {
            return allowEmpty ? "string" : "non-empty string";
        }
    }

    private enum BooleanType implements SettingType<Boolean> {
        INSTANCE;

        @Override
        public Boolean parse(String raw) {
            switch (raw.toLowerCase(Locale.ROOT)) {
                case "true":
                    return true;
                case "false":
                    return false;
                default:
                    throw new IllegalArgumentException("is not true or false");
            }
        }

        @Override
        public String format(Boolean value) {
            return value.toString();
        }

        @Override
        public String describe() {
            return "true|false";
        }
    }

    private record EnumType<E extends Enum<E>>(Class<E> enumClass) implements SettingType<E> {
        @Override
        public E parse(String raw) {
            for (E constant : enumClass.getEnumConstants()) {
                if (constant.name().equalsIgnoreCase(raw)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException("is not one of " + describe());
        }

        @Override
        public String format(E value) {
            return value.name().toLowerCase(Locale.ROOT);
        }

        @Override
        public String describe() {
            return Arrays.stream(enumClass.getEnumConstants())
                    .map(this::format)
                    .collect(Collectors.joining("|"));
        }
    }

    private enum PathType implements SettingType<Path> {
        INSTANCE;

        @Override
        public Path parse(String raw) {
            if (raw.isEmpty()) {
                throw new IllegalArgumentException("must not be empty");
            }
            try {
                return Path.of(raw);
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("is not a valid path: " + e.getReason());
            }
        }

        @Override
        public String format(Path value) {
            return value.toString();
        }

        @Override
        public String describe() {
            return "path";
        }
    }

    private enum HostPortType implements SettingType<HostPort> {
        INSTANCE;

        @Override
        public HostPort parse(String raw) {
            return HostPort.parse(raw);
        }

        @Override
        public String format(HostPort value) {
            return value.toString();
        }

        @Override
        public String describe() {
            return "host:port";
        }
    }
}
