package org.xtreemfs.qos.device;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.ThroughputCurve;

/**
 * What a run of the {@link CalibrationPattern} found, whether measured by the OSD or derived from a model by
 * {@link PatternDriver}: the one place that turns phase rates into profile figures.
 *
 * @param requestsPerSecondByPhase completed requests per second of every measured phase, by phase name
 * @param sequentialBytesPerSecond minimum of read and write at 1, 2, 4, 8, 16 streams
 *     ({@link CalibrationPattern#STREAM_COUNTS})
 * @param randomIops minimum of read and write 4 KiB requests per second at queue depth 32
 * @param floorBytesPerSecond minimum of read and write random object-size throughput at queue depth 32, at
 *     most the smallest sequential point (the curve's floor)
 * @param middleIops minimum of read and write random {@value CalibrationPattern#MIDDLE_REQUEST_BYTES}-byte
 *     requests per second (the middle-size check; not part of the profile)
 */
public record CalibrationResult(Map<String, Double> requestsPerSecondByPhase, long[] sequentialBytesPerSecond,
        long randomIops, long floorBytesPerSecond, long middleIops) {

    public CalibrationResult {
        requestsPerSecondByPhase = Map.copyOf(requestsPerSecondByPhase);
        sequentialBytesPerSecond = sequentialBytesPerSecond.clone();
    }

    /** Figures from the rate of every measured phase of {@code pattern}; a missing phase is an error. */
    public static CalibrationResult fromPhaseRates(CalibrationPattern pattern, Map<String, Double> rates) {
        Map<String, Double> measured = new LinkedHashMap<>();
        for (CalibrationPattern.Phase phase : pattern.phases()) {
            if (phase.measured()) {
                Double rate = rates.get(phase.name());
                if (rate == null || !(rate >= 0)) {
                    throw new IllegalArgumentException("phase " + phase.name() + " has no rate: " + rate);
                }
                measured.put(phase.name(), rate);
            }
        }
        List<Integer> streamCounts = CalibrationPattern.STREAM_COUNTS;
        long[] sequential = new long[streamCounts.size()];
        long smallest = Long.MAX_VALUE;
        for (int index = 0; index < sequential.length; index++) {
            int streams = streamCounts.get(index);
            // Never 0: a curve point must be positive, and 1 B/s says "nothing" as clearly.
            sequential[index] = Math.max(1, (long) (CalibrationPattern.OBJECT_SIZE_BYTES
                    * Math.min(measured.get("sequential-write-" + streams), measured.get("sequential-read-" + streams))));
            smallest = Math.min(smallest, sequential[index]);
        }
        long floor = Math.min(smallest, (long) (CalibrationPattern.OBJECT_SIZE_BYTES
                * minimumOfReadAndWrite(measured, CalibrationPattern.OBJECT_SIZE_BYTES)));
        long iops = (long) minimumOfReadAndWrite(measured, CalibrationPattern.RANDOM_REQUEST_BYTES);
        long middle = (long) minimumOfReadAndWrite(measured, CalibrationPattern.MIDDLE_REQUEST_BYTES);
        return new CalibrationResult(measured, sequential, iops, floor, middle);
    }

    private static double minimumOfReadAndWrite(Map<String, Double> measured, int requestBytes) {
        String size = requestBytes / 1024 + "KiB";
        return Math.min(measured.get("random-write-" + size), measured.get("random-read-" + size));
    }

    /**
     * Sequential throughput (minimum of read and write) at 1..16 streams: measured at 1, 2, 4, 8 and 16, and in
     * between the straight line between its measured neighbours (a disk's throughput changes smoothly with the
     * stream count, and the scheduler asks for every count).
     */
    public ThroughputCurve throughputCurve() {
        List<Integer> streamCounts = CalibrationPattern.STREAM_COUNTS;
        int last = streamCounts.get(streamCounts.size() - 1);
        long[] points = new long[last];
        for (int index = 0; index + 1 < streamCounts.size(); index++) {
            int from = streamCounts.get(index);
            int to = streamCounts.get(index + 1);
            for (int streams = from; streams < to; streams++) {
                long low = sequentialBytesPerSecond[index];
                long high = sequentialBytesPerSecond[index + 1];
                points[streams - 1] = low + (high - low) * (streams - from) / (to - from);
            }
        }
        points[last - 1] = sequentialBytesPerSecond[streamCounts.size() - 1];
        return new ThroughputCurve(points, floorBytesPerSecond);
    }

    /** The profile these figures give a device of {@code capacityBytes} serving {@code usageType}. */
    public OsdProfile profile(OsdUsageType usageType, DeviceClass deviceClass, long capacityBytes) {
        return new OsdProfile(usageType, deviceClass, capacityBytes, throughputCurve(), randomIops);
    }

    /** Throughput of the middle-size check in bytes per second. */
    public long middleBytesPerSecond() {
        return middleIops * CalibrationPattern.MIDDLE_REQUEST_BYTES;
    }
}
