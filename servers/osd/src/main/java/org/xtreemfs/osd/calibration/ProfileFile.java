package org.xtreemfs.osd.calibration;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.xtreemfs.foundation.config.SettingType;
import org.xtreemfs.qos.device.CalibrationPattern;
import org.xtreemfs.qos.device.CalibrationResult;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Units;

/**
 * The profile file {@code xtreemfs-osd --calibrate} writes and {@code osd.profile.path} reads: a Java properties
 * file (UTF-8). The profile's figures use {@link OsdProfiles#fromConfiguration}'s keys and units, so the one
 * parser of profile figures reads them:
 *
 * <pre>
 * source = calibrated
 * device_class = hdd                                   hdd|ssd
 * capacity = 75GiB                                     the object folder's file system size
 * sequential_throughput_curve = 52MiB/s,...            16 points, 1..16 streams, min of read and write
 * sequential_throughput_floor = 3MiB/s                 random object-size accesses, queue depth 32
 * random_iops = 41                                     random 4 KiB, queue depth 32, min of read and write
 * </pre>
 *
 * and how and when it was measured: {@code measured_at} (ISO-8601 UTC), {@code object_path}, {@code emulation},
 * {@code direct_io}, {@code pattern} (the pattern in words), {@code file_bytes}, {@code warmup_ms},
 * {@code window_ms}, {@code duration_ms} (the whole run), {@code middle_check_iops} and
 * {@code middle_check_bytes_per_second} (random 32 KiB), and {@code phase.<name>.requests_per_second} for
 * every measured phase. Only the figures' keys are read back; the usage type is the OSD's configuration.
 */
public final class ProfileFile {
    public static final String SOURCE_CALIBRATED = "calibrated";
    static final String KEY_SOURCE = "source";
    static final String KEY_MEASURED_AT = "measured_at";
    private static final List<String> REQUIRED_KEYS = List.of(KEY_SOURCE, OsdProfiles.KEY_DEVICE_CLASS,
            OsdProfiles.KEY_CAPACITY, OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_CURVE,
            OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_FLOOR, OsdProfiles.KEY_RANDOM_IOPS);

    /** The type of {@code osd.profile.path}: empty, or a readable, valid profile file (checked at start-up). */
    public static final SettingType<String> SETTING_TYPE = new SettingType<>() {
        @Override
        public String parse(String raw) {
            if (!raw.isEmpty()) {
                try {
                    read(Path.of(raw), OsdUsageType.BEST_EFFORT);
                } catch (IOException | RuntimeException e) {
                    throw new IllegalArgumentException("is not a readable profile file: " + e.getMessage());
                }
            }
            return raw;
        }

        @Override
        public String format(String value) {
            return value;
        }

        @Override
        public String describe() {
            return "path of a profile file written by xtreemfs-osd --calibrate, or empty";
        }
    };

    private ProfileFile() {}

    /** What a calibration run found and how it ran, ready to be written. */
    public record Calibrated(CalibrationResult result, DeviceClass deviceClass, long capacityBytes, Instant measuredAt,
            Path objectPath, String emulation, boolean directIo, CalibrationPattern pattern, long durationNanos) {}

    /** Writes the profile file (through a temporary file and a rename, so a reader never sees half of it). */
    public static void write(Path file, Calibrated calibrated) throws IOException {
        CalibrationResult result = calibrated.result();
        OsdProfile profile = result.profile(OsdUsageType.BEST_EFFORT, calibrated.deviceClass(),
                calibrated.capacityBytes());
        StringJoiner curve = new StringJoiner(",");
        for (long point : profile.sequentialThroughput().measuredBytesPerSecond()) {
            curve.add(Units.formatBytesPerSecond(point));
        }
        CalibrationPattern pattern = calibrated.pattern();
        StringBuilder text = new StringBuilder();
        text.append("# XtreemFS OSD profile written by xtreemfs-osd --calibrate; register it with osd.profile.path\n");
        line(text, KEY_SOURCE, SOURCE_CALIBRATED);
        line(text, OsdProfiles.KEY_DEVICE_CLASS, Units.displayName(calibrated.deviceClass()));
        line(text, OsdProfiles.KEY_CAPACITY, Units.formatBytes(calibrated.capacityBytes()));
        line(text, OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_CURVE, curve.toString());
        line(text, OsdProfiles.KEY_SEQUENTIAL_THROUGHPUT_FLOOR,
                Units.formatBytesPerSecond(profile.sequentialThroughput().floorBytesPerSecond()));
        line(text, OsdProfiles.KEY_RANDOM_IOPS, Long.toString(profile.randomIops()));
        text.append("# how and when\n");
        line(text, KEY_MEASURED_AT, calibrated.measuredAt().toString());
        line(text, "object_path", calibrated.objectPath().toString());
        line(text, "emulation", calibrated.emulation());
        line(text, "direct_io", Boolean.toString(calibrated.directIo()));
        line(text, "pattern", describe(pattern));
        line(text, "file_bytes", Long.toString(pattern.fileBytes()));
        line(text, "warmup_ms", Long.toString(pattern.warmupNanos() / 1_000_000));
        line(text, "window_ms", Long.toString(pattern.windowNanos() / 1_000_000));
        line(text, "duration_ms", Long.toString(calibrated.durationNanos() / 1_000_000));
        line(text, "middle_check_iops", Long.toString(result.middleIops()));
        line(text, "middle_check_bytes_per_second", Long.toString(result.middleBytesPerSecond()));
        new TreeMap<>(result.requestsPerSecondByPhase()).forEach((phase, rate) ->
                line(text, "phase." + phase + ".requests_per_second", String.format(java.util.Locale.ROOT, "%.1f", rate)));
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
            writer.write(text.toString());
        }
        Files.move(temporary, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The pattern in words, as recorded in the file. */
    public static String describe(CalibrationPattern pattern) {
        return CalibrationPattern.FILE_COUNT + " files of " + Units.formatBytes(pattern.fileBytes()) + "; sequential "
                + Units.formatBytes(CalibrationPattern.OBJECT_SIZE_BYTES) + " requests, one outstanding per stream, at "
                + CalibrationPattern.STREAM_COUNTS + " streams, minimum of write and read; random "
                + Units.formatBytes(CalibrationPattern.RANDOM_REQUEST_BYTES) + " (IOPS), "
                + Units.formatBytes(CalibrationPattern.OBJECT_SIZE_BYTES) + " (floor) and "
                + Units.formatBytes(CalibrationPattern.MIDDLE_REQUEST_BYTES) + " (check) at queue depth "
                + CalibrationPattern.RANDOM_QUEUE_DEPTH + " over the files";
    }

    /**
     * Reads a profile file for an OSD serving {@code usageType}. Errors name the file and, for a bad or missing
     * figure, the key and the value.
     */
    public static OsdProfile read(Path file, OsdUsageType usageType) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        Map<String, String> settings = new HashMap<>();
        for (String key : properties.stringPropertyNames()) {
            settings.put(key, properties.getProperty(key).trim());
        }
        for (String key : REQUIRED_KEYS) {
            if (!settings.containsKey(key)) {
                throw new IllegalArgumentException(file + ": " + key + " is missing");
            }
        }
        settings.put(OsdProfiles.KEY_USAGE_TYPE, Units.displayName(usageType));
        try {
            return OsdProfiles.fromConfiguration(settings);
        } catch (InvalidQosValueException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** The recorded source and measuring time, for the status page and the registered profile's source. */
    public static String source(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        return properties.getProperty(KEY_SOURCE, SOURCE_CALIBRATED).trim();
    }

    private static void line(StringBuilder text, String key, String value) {
        text.append(key).append(" = ").append(value.replace("\\", "\\\\")).append('\n');
    }
}
