package org.xtreemfs.qos.model;

import java.util.Objects;

/**
 * What one OSD offers: its usage type, device class, capacity, sequential throughput as a function of
 * concurrent streams, and random 4 KiB IOPS (constant in the number of tenants, per the HARNESS
 * measurements). Invariant: capacity &gt; 0 and IOPS &ge; 0.
 */
public record OsdProfile(OsdUsageType usageType, DeviceClass deviceClass, long capacityBytes,
    ThroughputCurve sequentialThroughput, long randomIops) {

  public OsdProfile {
    Objects.requireNonNull(usageType, "usageType");
    Objects.requireNonNull(deviceClass, "deviceClass");
    Objects.requireNonNull(sequentialThroughput, "sequentialThroughput");
    if (capacityBytes <= 0) {
      throw new InvalidQosValueException(OsdProfiles.KEY_CAPACITY, Units.formatBytes(capacityBytes),
          "must be positive");
    }
    if (randomIops < 0) {
      throw new InvalidQosValueException(OsdProfiles.KEY_RANDOM_IOPS, Long.toString(randomIops),
          "must not be negative");
    }
  }

  /**
   * The most this OSD may carry in total while {@code sequentialStreams} sequential volumes are placed on
   * it. With no stream the throughput limit is the one-stream figure (nothing is promised against it).
   */
  public ResourceVector limits(int sequentialStreams) {
    return new ResourceVector(capacityBytes,
        sequentialThroughput.admissibleBytesPerSecond(Math.max(1, sequentialStreams)), randomIops);
  }

  /** The same device dedicated to another usage type. */
  public OsdProfile withUsageType(OsdUsageType newUsageType) {
    return new OsdProfile(newUsageType, deviceClass, capacityBytes, sequentialThroughput, randomIops);
  }
}
