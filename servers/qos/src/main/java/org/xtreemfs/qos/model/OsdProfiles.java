package org.xtreemfs.qos.model;

import java.util.Map;

/**
 * Built-in device profiles and the pure factory that builds a profile from configuration strings.
 *
 * <p>The built-in figures are exactly what the device models of {@code org.xtreemfs.qos.device} deliver under
 * the calibration pattern ({@code CalibrationPattern.standard()}, derived by {@code PatternDriver}):
 * {@code WriteBackCache.osdHdd7200()} (the HDD model behind the host's write-back, as the OSD writes) and
 * {@code SsdModel.sata()}. They are constants so that reading a profile
 * costs nothing; {@code BuiltInProfilesTest} derives them again and fails if a model or the pattern changes
 * without them. The models are data-sheet shaped, not measurements of this project's hardware; an OSD's own
 * calibration ({@code xtreemfs-osd --calibrate}) replaces them.
 */
public final class OsdProfiles {
  public static final String KEY_USAGE_TYPE = "usage_type";
  public static final String KEY_DEVICE_CLASS = "device_class";
  public static final String KEY_CAPACITY = "capacity";
  public static final String KEY_SEQUENTIAL_THROUGHPUT_CURVE = "sequential_throughput_curve";
  public static final String KEY_SEQUENTIAL_THROUGHPUT_FLOOR = "sequential_throughput_floor";
  public static final String KEY_RANDOM_IOPS = "random_iops";

  /**
   * HDD minimum of read and write at 1..16 streams (measured at 1, 2, 4, 8, 16, straight lines between), bytes per
   * second, of the drive behind the host's write-back ({@code WriteBackCache.osdHdd7200()}: the OSD writes
   * unsynced). One stream runs at the media rate of the innermost zone (where the calibration's lone stream lies).
   * Writes barely drop at 2 streams (95 MiB/s: the elevator writes a batch of 64 dirty objects with one
   * positioning per stream) and fall gradually to 42 MiB/s at 16; reads, which the cache cannot batch, set the
   * minimum from 2 streams on: 30.3 MiB/s at 2, rising to 42.7 MiB/s at 8 as the drive's read-ahead segments
   * serve more streams from cache.
   */
  private static final long[] HDD_7200_CURVE_BYTES_PER_SECOND = {96944128, 31784960, 35635200, 39485440, 40816640,
      42147840, 43479040, 44810240, 44722176, 44634112, 44546048, 44457984, 44369920, 44281856, 44193792, 44105728};
  /** Random 128 KiB accesses (reads 9.1 MiB/s, synced writes 9.5) deliver less than any stream count. */
  private static final long HDD_7200_FLOOR_BYTES_PER_SECOND = 9551872;
  /**
   * Random 4 KiB reads over the calibration files, spread over the whole disk: seek plus half a rotation (the
   * calibration's synced writes reach 82; buffered, sorted 64 at a time, they would sustain about 167).
   */
  private static final long HDD_7200_RANDOM_IOPS = 80;

  /**
   * SATA SSD at 1..16 streams: one 128 KiB request uses 2 of the 8 channels, so throughput grows with streams
   * up to 4 and then stays at the write bandwidth (the minimum of read and write).
   */
  private static final long[] SATA_SSD_CURVE_BYTES_PER_SECOND = {116785152, 233570304, 350355456, 467140608,
      467140608, 467140608, 467140608, 467140608, 467140608, 467140608, 467140608, 467140608, 467140608, 467140608,
      467140608, 467140608};
  private static final long SATA_SSD_FLOOR_BYTES_PER_SECOND = 116785152;
  /** Random 4 KiB reads at queue depth 32 (writes, absorbed by the write cache, reach about 81,000). */
  private static final long SATA_SSD_RANDOM_IOPS = 56866;
  /** Both models are 1 TiB devices. */
  private static final long MODEL_CAPACITY_TIB = 1;

  private OsdProfiles() {}

  /** The 7200 rpm HDD model's profile ({@code WriteBackCache.osdHdd7200()}) dedicated to {@code usageType}. */
  public static OsdProfile hdd7200(OsdUsageType usageType) {
    return new OsdProfile(usageType, DeviceClass.HDD, Units.tebibytes(MODEL_CAPACITY_TIB),
        new ThroughputCurve(HDD_7200_CURVE_BYTES_PER_SECOND, HDD_7200_FLOOR_BYTES_PER_SECOND), HDD_7200_RANDOM_IOPS);
  }

  /** The SATA SSD model's profile ({@code SsdModel.sata()}) dedicated to {@code usageType}. */
  public static OsdProfile sataSsd(OsdUsageType usageType) {
    return new OsdProfile(usageType, DeviceClass.SSD, Units.tebibytes(MODEL_CAPACITY_TIB),
        new ThroughputCurve(SATA_SSD_CURVE_BYTES_PER_SECOND, SATA_SSD_FLOOR_BYTES_PER_SECOND), SATA_SSD_RANDOM_IOPS);
  }

  public static OsdProfile builtIn(DeviceClass deviceClass, OsdUsageType usageType) {
    return switch (deviceClass) {
      case HDD -> hdd7200(usageType);
      case SSD -> sataSsd(usageType);
    };
  }

  /**
   * Builds a profile from configuration values. Required keys: {@value #KEY_USAGE_TYPE} (sequential, random,
   * best-effort) and {@value #KEY_DEVICE_CLASS} (hdd, ssd). Optional keys override the built-in figures of
   * that device class: {@value #KEY_CAPACITY} (a size), {@value #KEY_SEQUENTIAL_THROUGHPUT_CURVE} (rates at
   * 1, 2, ... streams separated by commas), {@value #KEY_SEQUENTIAL_THROUGHPUT_FLOOR} (a rate; when a curve is
   * given without a floor the floor is 0, the most conservative choice) and {@value #KEY_RANDOM_IOPS}.
   * Other keys are ignored. Errors name the key and the value.
   */
  public static OsdProfile fromConfiguration(Map<String, String> settings) {
    OsdUsageType usageType = Units.parseChoice(OsdUsageType.class, KEY_USAGE_TYPE, settings.get(KEY_USAGE_TYPE));
    DeviceClass deviceClass = Units.parseChoice(DeviceClass.class, KEY_DEVICE_CLASS, settings.get(KEY_DEVICE_CLASS));
    OsdProfile builtIn = builtIn(deviceClass, usageType);
    long capacityBytes = settings.containsKey(KEY_CAPACITY)
        ? Units.parseBytes(KEY_CAPACITY, settings.get(KEY_CAPACITY)) : builtIn.capacityBytes();
    ThroughputCurve curve = settings.containsKey(KEY_SEQUENTIAL_THROUGHPUT_CURVE)
        ? parseCurve(settings.get(KEY_SEQUENTIAL_THROUGHPUT_CURVE), settings.get(KEY_SEQUENTIAL_THROUGHPUT_FLOOR))
        : builtIn.sequentialThroughput();
    long randomIops = settings.containsKey(KEY_RANDOM_IOPS)
        ? Units.parseIops(KEY_RANDOM_IOPS, settings.get(KEY_RANDOM_IOPS)) : builtIn.randomIops();
    return new OsdProfile(usageType, deviceClass, capacityBytes, curve, randomIops);
  }

  private static ThroughputCurve parseCurve(String curveText, String floorText) {
    if (curveText == null || curveText.isBlank()) {
      throw new InvalidQosValueException(KEY_SEQUENTIAL_THROUGHPUT_CURVE, String.valueOf(curveText),
          "is empty; expected rates at 1, 2, ... streams such as 140MiB/s,146MiB/s,128MiB/s");
    }
    String[] pointTexts = curveText.split(",", -1);
    long[] points = new long[pointTexts.length];
    for (int index = 0; index < pointTexts.length; index++) {
      points[index] = Units.parseBytesPerSecond(KEY_SEQUENTIAL_THROUGHPUT_CURVE, pointTexts[index]);
      if (points[index] <= 0) {
        throw new InvalidQosValueException(KEY_SEQUENTIAL_THROUGHPUT_CURVE, curveText,
            "has a non-positive point at " + (index + 1) + " streams");
      }
    }
    long floorBytesPerSecond = floorText == null ? 0 : Units.parseBytesPerSecond(KEY_SEQUENTIAL_THROUGHPUT_FLOOR,
        floorText);
    try {
      return new ThroughputCurve(points, floorBytesPerSecond);
    } catch (IllegalArgumentException badFloor) {
      throw new InvalidQosValueException(KEY_SEQUENTIAL_THROUGHPUT_FLOOR, floorText, badFloor.getMessage());
    }
  }
}
