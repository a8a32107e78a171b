package org.xtreemfs.qos.model;

import java.util.Map;

/**
 * Built-in device profiles and the pure factory that builds a profile from configuration strings.
 *
 * <p>The built-in figures are representative values for a 7200 rpm SATA HDD and a SATA SSD, shaped after
 * the measurements of the HARNESS report D5.1 (one file per stream, minimum of read and write): HDD
 * sequential throughput rises slightly from 1 to 2 streams and then falls steadily; SSD throughput is
 * nearly flat; random IOPS are constant. They were not measured on this project's hardware; the OSD's own
 * calibration benchmark or configuration should replace them in production.
 */
public final class OsdProfiles {
  public static final String KEY_USAGE_TYPE = "usage_type";
  public static final String KEY_DEVICE_CLASS = "device_class";
  public static final String KEY_CAPACITY = "capacity";
  public static final String KEY_SEQUENTIAL_THROUGHPUT_CURVE = "sequential_throughput_curve";
  public static final String KEY_SEQUENTIAL_THROUGHPUT_FLOOR = "sequential_throughput_floor";
  public static final String KEY_RANDOM_IOPS = "random_iops";

  /** HDD minimum of read and write at 1..16 streams, MiB/s: a small gain at 2 streams, then a steady fall. */
  private static final long[] HDD_7200_CURVE_MIBPS = {140, 146, 128, 112, 100, 91, 84, 78, 73, 69, 66, 63, 61, 59, 57,
      55};
  /**
   * All-random bound for the HDD: each 128 KiB object access costs at most an average seek (8.5 ms), half a
   * rotation at 7200 rpm (4.2 ms) and its transfer (0.9 ms), about 74 accesses or 9 MiB per second.
   */
  private static final long HDD_7200_FLOOR_MIBPS = 9;
  /** Full-span random 4 KiB IOPS at queue depth 32 (HARNESS: HDD IOPS fall with the seek span, not tenants). */
  private static final long HDD_7200_RANDOM_IOPS = 150;
  private static final long HDD_7200_CAPACITY_TIB = 2;

  /** SATA SSD minimum of read and write at 1..8 streams, MiB/s: a drop of a few percent. */
  private static final long[] SATA_SSD_CURVE_MIBPS = {480, 478, 475, 472, 469, 466, 463, 460};
  /** 128 KiB random reads on a SATA SSD still run near the interface limit; 400 MiB/s is well below it. */
  private static final long SATA_SSD_FLOOR_MIBPS = 400;
  /** Sustained random 4 KiB writes at queue depth 32 (reads reach about twice that); the minimum is kept. */
  private static final long SATA_SSD_RANDOM_IOPS = 40_000;
  private static final long SATA_SSD_CAPACITY_TIB = 1;

  private OsdProfiles() {}

  /** The representative 7200 rpm HDD dedicated to {@code usageType}. */
  public static OsdProfile hdd7200(OsdUsageType usageType) {
    return new OsdProfile(usageType, DeviceClass.HDD, Units.tebibytes(HDD_7200_CAPACITY_TIB),
        curveFromMebibytesPerSecond(HDD_7200_CURVE_MIBPS, HDD_7200_FLOOR_MIBPS), HDD_7200_RANDOM_IOPS);
  }

  /** The representative SATA SSD dedicated to {@code usageType}. */
  public static OsdProfile sataSsd(OsdUsageType usageType) {
    return new OsdProfile(usageType, DeviceClass.SSD, Units.tebibytes(SATA_SSD_CAPACITY_TIB),
        curveFromMebibytesPerSecond(SATA_SSD_CURVE_MIBPS, SATA_SSD_FLOOR_MIBPS), SATA_SSD_RANDOM_IOPS);
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

  private static ThroughputCurve curveFromMebibytesPerSecond(long[] pointsMebibytesPerSecond,
      long floorMebibytesPerSecond) {
    long[] pointsBytesPerSecond = new long[pointsMebibytesPerSecond.length];
    for (int index = 0; index < pointsBytesPerSecond.length; index++) {
      pointsBytesPerSecond[index] = Units.mebibytes(pointsMebibytesPerSecond[index]);
    }
    return new ThroughputCurve(pointsBytesPerSecond, Units.mebibytes(floorMebibytesPerSecond));
  }
}
