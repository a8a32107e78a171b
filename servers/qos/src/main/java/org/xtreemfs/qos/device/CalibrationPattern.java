package org.xtreemfs.qos.device;

import java.util.ArrayList;
import java.util.List;

/**
 * The one definition of how an OSD's device is calibrated: the access pattern that both the OSD's
 * {@code --calibrate} run (real threads, real or emulated storage) and {@link PatternDriver} (a device model,
 * simulated time) execute, phase by phase in the same order, on the same files and offsets.
 *
 * <ol>
 *   <li><b>Fill</b>: {@value #FILE_COUNT} files ({@link #fileId}) of {@code fileBytes} each are written in full,
 *       one after the other in {@value #OBJECT_SIZE_BYTES}-byte requests by one client, so every later read finds
 *       data on a real disk. Not measured, and not charged to an emulated device.
 *   <li><b>Sequential</b>, for N = 1, 2, 4, 8, 16: N streams, stream s on file s, in requests of a reserved
 *       volume's default object size {@value #OBJECT_SIZE_BYTES} bytes from offset 0 (wrapping at the file's end), one
 *       request outstanding per stream (a stream sends its next request when the previous one completes): the
 *       OSD's storage stage serves one file's requests one at a time, so this is what a file's stream gets at
 *       the device. First writing, then reading; the profile takes the minimum of read and write at each N.
 *   <li><b>Random</b>: {@value #RANDOM_QUEUE_DEPTH} clients, each request at a uniformly chosen request-aligned
 *       offset of a uniformly chosen file of the {@value #FILE_COUNT}: writes, then reads, at 4 KiB (the random
 *       IOPS), at {@value #OBJECT_SIZE_BYTES} bytes (the throughput floor: every object access pays a full
 *       positioning) and at {@value #MIDDLE_REQUEST_BYTES} bytes (the middle-size check). The span is the
 *       {@value #FILE_COUNT} files, which an emulated device lays out like any other files ({@link DeviceLayout}),
 *       so a calibration run reproduces it. Random writes are synced: unsynced, a window of seconds would
 *       measure the host's dirty buffer filling, and the fsync after the phase would leave the disk a backlog
 *       of thousands of scattered writes (minutes on an HDD); synced, they measure what the media takes per
 *       request, a lower bound of the buffered rate (on a disk the reads are lower still).
 * </ol>
 *
 * Each measured phase runs {@code warmupNanos}, then counts the requests that complete within the next
 * {@code windowNanos}; the phase ends when every client's last request has completed, a write phase only after
 * an fsync of every calibration file (not counted). Sequential writes are unsynced, as an OSD's usual writes
 * are: a host's write-back buffer fills within the warm-up, so the window measures what the media sustains, and
 * the fsync keeps the dirty data of one phase from being written back during the next. Offsets are pure
 * functions of (phase, client, request index): no random source, the same on every run.
 */
public record CalibrationPattern(long fileBytes, long warmupNanos, long windowNanos) {
    /**
     * The default object size of a reserved volume (StripingRules.RESERVED_OR_REPLICATED_DEFAULT_OBJECT_SIZE_BYTES
     * takes its value from here): the request size the admitted figures are measured in. Volumes without a
     * reservation default to larger objects, which only makes their sequential requests cheaper per byte.
     */
    public static final int OBJECT_SIZE_BYTES = 128 * 1024;
    public static final int FILE_COUNT = 16;
    public static final List<Integer> STREAM_COUNTS = List.of(1, 2, 4, 8, 16);
    public static final int RANDOM_QUEUE_DEPTH = 32;
    public static final int RANDOM_REQUEST_BYTES = 4096;
    public static final int MIDDLE_REQUEST_BYTES = 32 * 1024;

    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final long MIB = 1L << 20;

    public CalibrationPattern {
        if (fileBytes < OBJECT_SIZE_BYTES || fileBytes % OBJECT_SIZE_BYTES != 0 || fileBytes > DeviceLayout.REGION_BYTES) {
            throw new IllegalArgumentException("fileBytes must be a multiple of " + OBJECT_SIZE_BYTES + " up to "
                    + DeviceLayout.REGION_BYTES + ", was " + fileBytes);
        }
        if (warmupNanos < 0 || windowNanos <= 0) {
            throw new IllegalArgumentException("need warmupNanos >= 0 and windowNanos > 0, were " + warmupNanos
                    + " and " + windowNanos);
        }
    }

    /** The default run: 64 MiB files (1 GiB in all), 1 s warm-up and 8 s measured per phase; about 3 minutes. */
    public static CalibrationPattern standard() {
        return new CalibrationPattern(64 * MIB, SECOND_NANOS, 8 * SECOND_NANOS);
    }

    /** The short run ({@code --short}): 16 MiB files (256 MiB), 0.25 s warm-up and 1.5 s measured per phase. */
    public static CalibrationPattern quick() {
        return new CalibrationPattern(16 * MIB, SECOND_NANOS / 4, 3 * SECOND_NANOS / 2);
    }

    /**
     * File id of calibration file {@code index}: {@code calibration-<index>}, except file 0, the lone stream's file,
     * which is named {@value #FIRST_FILE_ID} because {@link DeviceLayout} puts that name in the last region of a
     * 1 TiB device (both models' size): the innermost, slowest zone of a disk, so that the one-stream figure holds
     * wherever a volume's file lies. The {@value #FILE_COUNT} files lie in distinct regions (a test checks it).
     */
    public static String fileId(int index) {
        return index == 0 ? FIRST_FILE_ID : "calibration-" + index;
    }

    /** See {@link #fileId}. */
    public static final String FIRST_FILE_ID = "calibration-0-174";

    /** A phase's direction and shape. */
    public enum Shape { FILL, SEQUENTIAL, RANDOM }

    /**
     * One access of the pattern: {@code lengthBytes} at {@code offsetBytes} of calibration file {@code fileIndex};
     * {@code synced} for a write that must be durable when it returns (the random writes, see {@link #phases}).
     */
    public record Access(int fileIndex, long offsetBytes, int lengthBytes, IoKind kind, boolean synced) {
        /** Object number holding the access (objects of {@value #OBJECT_SIZE_BYTES} bytes; no access spans two). */
        public long objectNumber() {
            return offsetBytes / OBJECT_SIZE_BYTES;
        }

        public int offsetInObjectBytes() {
            return (int) (offsetBytes % OBJECT_SIZE_BYTES);
        }

        /** The device request of this access on an emulated device of {@code capacityBytes} (one OSD, width 1). */
        public IoRequest deviceRequest(long capacityBytes) {
            return DeviceLayout.request(kind, fileId(fileIndex), objectNumber(), OBJECT_SIZE_BYTES,
                    offsetInObjectBytes(), lengthBytes, capacityBytes).withSynced(synced);
        }
    }

    /**
     * One phase: {@code clients} concurrent clients; for {@link Shape#SEQUENTIAL} {@code streams} streams, for
     * {@link Shape#RANDOM} requests of {@code requestBytes}. The fill phase has one client and a fixed number of
     * requests ({@link #requestCount()}); measured phases run by time.
     */
    public record Phase(String name, Shape shape, IoKind kind, int streams, int requestBytes, int clients,
            long fileBytes) {
        /** The {@code index}-th request (0-based) of client {@code client}. */
        public Access access(int client, long index) {
            switch (shape) {
                case FILL -> {
                    long objectsPerFile = fileBytes / OBJECT_SIZE_BYTES;
                    return new Access((int) (index / objectsPerFile), (index % objectsPerFile) * OBJECT_SIZE_BYTES,
                            OBJECT_SIZE_BYTES, kind, false);
                }
                case SEQUENTIAL -> {
                    return new Access(client, index * OBJECT_SIZE_BYTES % fileBytes, OBJECT_SIZE_BYTES, kind, false);
                }
                default -> {
                    long first = mix(((long) name.hashCode() << 32) ^ ((long) client << 40) ^ index);
                    long second = mix(first);
                    int file = (int) Long.remainderUnsigned(first, FILE_COUNT);
                    long slot = Long.remainderUnsigned(second, fileBytes / requestBytes);
                    return new Access(file, slot * requestBytes, requestBytes, kind, kind == IoKind.WRITE);
                }
            }
        }

        /** Requests of the fill phase: every object of every file once; measured phases have none fixed. */
        public long requestCount() {
            return shape == Shape.FILL ? FILE_COUNT * (fileBytes / OBJECT_SIZE_BYTES) : -1;
        }


        public boolean measured() {
            return shape != Shape.FILL;
        }

        private static long mix(long value) {
            // SplitMix64's finaliser: a fixed bijection that spreads consecutive inputs over all 64 bits.
            long z = value + 0x9e3779b97f4a7c15L;
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            return z ^ (z >>> 31);
        }
    }

    /** Every phase in run order: fill, sequential write and read per stream count, random write and read per size. */
    public List<Phase> phases() {
        List<Phase> phases = new ArrayList<>();
        phases.add(new Phase("fill", Shape.FILL, IoKind.WRITE, 1, OBJECT_SIZE_BYTES, 1, fileBytes));
        for (int streams : STREAM_COUNTS) {
            for (IoKind kind : List.of(IoKind.WRITE, IoKind.READ)) {
                phases.add(new Phase("sequential-" + name(kind) + "-" + streams, Shape.SEQUENTIAL, kind, streams,
                        OBJECT_SIZE_BYTES, streams, fileBytes));
            }
        }
        for (int requestBytes : List.of(RANDOM_REQUEST_BYTES, OBJECT_SIZE_BYTES, MIDDLE_REQUEST_BYTES)) {
            for (IoKind kind : List.of(IoKind.WRITE, IoKind.READ)) {
                phases.add(new Phase("random-" + name(kind) + "-" + requestBytes / 1024 + "KiB", Shape.RANDOM, kind,
                        0, requestBytes, RANDOM_QUEUE_DEPTH, fileBytes));
            }
        }
        return List.copyOf(phases);
    }

    private static String name(IoKind kind) {
        return kind == IoKind.READ ? "read" : "write";
    }
}
