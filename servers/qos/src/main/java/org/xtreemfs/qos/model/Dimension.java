package org.xtreemfs.qos.model;

/** One axis of a {@link ResourceVector}; its name is the field name used in messages and on the command line. */
public enum Dimension {
  CAPACITY("capacity"),
  THROUGHPUT("throughput"),
  IOPS("iops");

  private final String fieldName;

  Dimension(String fieldName) {
    this.fieldName = fieldName;
  }

  public String fieldName() {
    return fieldName;
  }

  public long of(ResourceVector vector) {
    return switch (this) {
      case CAPACITY -> vector.capacityBytes();
      case THROUGHPUT -> vector.throughputBytesPerSecond();
      case IOPS -> vector.iops();
    };
  }

  /** A copy of {@code vector} with this dimension set to {@code value}. */
  public ResourceVector with(ResourceVector vector, long value) {
    return switch (this) {
      case CAPACITY -> new ResourceVector(value, vector.throughputBytesPerSecond(), vector.iops());
      case THROUGHPUT -> new ResourceVector(vector.capacityBytes(), value, vector.iops());
      case IOPS -> new ResourceVector(vector.capacityBytes(), vector.throughputBytesPerSecond(), value);
    };
  }

  /** The value for people, approximate where exact would be unreadable: "~109.9MiB/s", "2000IOPS". */
  public String describe(long value) {
    return switch (this) {
      case CAPACITY -> Units.describeBytes(value);
      case THROUGHPUT -> Units.describeBytes(value) + "/s";
      case IOPS -> Units.formatIops(value);
    };
  }

  /** The exact value in human units: "200GiB", "150MiB/s", "2000IOPS". */
  public String format(long value) {
    return switch (this) {
      case CAPACITY -> Units.formatBytes(value);
      case THROUGHPUT -> Units.formatBytesPerSecond(value);
      case IOPS -> Units.formatIops(value);
    };
  }
}
