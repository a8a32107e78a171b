package org.xtreemfs.qos.scheduler;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ThroughputCurve;

/**
 * Saves a {@link ClusterState} to bytes and rebuilds it, in memory (the MRC's ledger stores protobuf records
 * instead, so nothing keeps these bytes across versions and an older version is refused).
 *
 * <p>Format, big-endian: magic "XQOS", version 3; OSD count, then per OSD its uuid, usage type, device class
 * (enum names as strings, so reordering constants cannot remap them), capacity, curve point count and points,
 * curve floor, random IOPS; placement count, then per placement its volume id, type, capacity, throughput,
 * IOPS, weight, limit throughput, limit IOPS, replica count, OSD count and OSD uuids (replica after replica). Committed resources are not
 * stored: decoding re-applies every placement through {@link ClusterState#rebuild}, so saved and live state
 * agree by construction and a corrupt or inconsistent record is refused rather than loaded.
 */
public final class ClusterStateCodec {
  private static final int MAGIC = 0x58514F53;
  private static final int VERSION = 3;

  private ClusterStateCodec() {}

  public static byte[] encode(ClusterState state) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      List<Osd> osds = state.osdDescriptors();
      out.writeInt(osds.size());
      for (Osd osd : osds) {
        writeOsd(out, osd);
      }
      List<Placement> placements = state.placements();
      out.writeInt(placements.size());
      for (Placement placement : placements) {
        writePlacement(out, placement);
      }
    } catch (IOException impossible) {
      throw new UncheckedIOException("writing to memory failed", impossible);
    }
    return bytes.toByteArray();
  }

  /** Throws {@link IllegalArgumentException} saying what is wrong when the bytes are not a valid state. */
  public static ClusterState decode(byte[] encoded) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
      if (in.readInt() != MAGIC) {
        throw new IllegalArgumentException("not a saved scheduler state (bad magic)");
      }
      int version = in.readInt();
      if (version != VERSION) {
        throw new IllegalArgumentException("unsupported scheduler state version " + version);
      }
      int osdCount = readCount(in, encoded.length, "OSD");
      List<Osd> osds = new ArrayList<>(osdCount);
      for (int index = 0; index < osdCount; index++) {
        osds.add(readOsd(in, encoded.length));
      }
      int placementCount = readCount(in, encoded.length, "placement");
      List<Placement> placements = new ArrayList<>(placementCount);
      for (int index = 0; index < placementCount; index++) {
        placements.add(readPlacement(in, encoded.length));
      }
      if (in.available() != 0) {
        throw new IllegalArgumentException("saved scheduler state has " + in.available() + " trailing bytes");
      }
      return ClusterState.rebuild(osds, placements);
    } catch (IOException truncated) {
      throw new IllegalArgumentException("saved scheduler state is truncated or malformed: " + truncated, truncated);
    }
  }

  private static void writeOsd(DataOutputStream out, Osd osd) throws IOException {
    OsdProfile profile = osd.profile();
    out.writeUTF(osd.uuid());
    out.writeUTF(profile.usageType().name());
    out.writeUTF(profile.deviceClass().name());
    out.writeLong(profile.capacityBytes());
    long[] points = profile.sequentialThroughput().measuredBytesPerSecond();
    out.writeInt(points.length);
    for (long point : points) {
      out.writeLong(point);
    }
    out.writeLong(profile.sequentialThroughput().floorBytesPerSecond());
    out.writeLong(profile.randomIops());
  }

  private static Osd readOsd(DataInputStream in, int encodedLength) throws IOException {
    String uuid = in.readUTF();
    OsdUsageType usageType = readEnum(in, OsdUsageType.class);
    DeviceClass deviceClass = readEnum(in, DeviceClass.class);
    long capacityBytes = in.readLong();
    long[] points = new long[readCount(in, encodedLength, "curve point")];
    for (int index = 0; index < points.length; index++) {
      points[index] = in.readLong();
    }
    ThroughputCurve curve = new ThroughputCurve(points, in.readLong());
    return new Osd(uuid, new OsdProfile(usageType, deviceClass, capacityBytes, curve, in.readLong()));
  }

  private static void writePlacement(DataOutputStream out, Placement placement) throws IOException {
    Reservation reservation = placement.reservation();
    out.writeUTF(placement.volumeId());
    out.writeUTF(reservation.type().name());
    out.writeLong(reservation.capacityBytes());
    out.writeLong(reservation.throughputBytesPerSecond());
    out.writeLong(reservation.iops());
    out.writeLong(reservation.weight());
    out.writeLong(reservation.limitThroughputBytesPerSecond());
    out.writeLong(reservation.limitIops());
    out.writeInt(placement.replicas());
    out.writeInt(placement.osdUuids().size());
    for (String uuid : placement.osdUuids()) {
      out.writeUTF(uuid);
    }
  }

  private static Placement readPlacement(DataInputStream in, int encodedLength) throws IOException {
    String volumeId = in.readUTF();
    Reservation reservation = new Reservation(readEnum(in, ReservationType.class), in.readLong(), in.readLong(),
        in.readLong(), in.readLong(), in.readLong(), in.readLong());
    int replicas = readCount(in, encodedLength, "replica");
    int osdCount = readCount(in, encodedLength, "stripe");
    List<String> osdUuids = new ArrayList<>(osdCount);
    for (int index = 0; index < osdCount; index++) {
      osdUuids.add(in.readUTF());
    }
    return new Placement(volumeId, reservation, osdUuids, replicas);
  }

  /** A count that cannot exceed the input's length, so corrupt input cannot trigger a huge allocation. */
  private static int readCount(DataInputStream in, int encodedLength, String what) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > encodedLength) {
      throw new IllegalArgumentException("saved scheduler state has an impossible " + what + " count " + count);
    }
    return count;
  }

  private static <E extends Enum<E>> E readEnum(DataInputStream in, Class<E> type) throws IOException {
    String name = in.readUTF();
    try {
      return Enum.valueOf(type, name);
    } catch (IllegalArgumentException unknown) {
      throw new IllegalArgumentException("saved scheduler state has unknown " + type.getSimpleName() + " " + name,
          unknown);
    }
  }
}
