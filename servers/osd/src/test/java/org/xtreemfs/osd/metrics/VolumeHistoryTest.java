package org.xtreemfs.osd.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chart's history driven with explicit nanos: the accounting's windows, dated on the wall clock, bounded. */
class VolumeHistoryTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final int WINDOWS_KEPT = 10;

    private static VolumeAccounting accounting(int volumesMax) {
        return new VolumeAccounting(SECOND, WINDOWS_KEPT, 100, 3600 * SECOND, volumesMax);
    }

    private static void serve(VolumeAccounting accounting, String volume, long reservation, long cost, long atNanos) {
        accounting.enqueued(volume, reservation, cost, atNanos);
        accounting.released(volume, cost, atNanos);
        accounting.completed(volume, cost, cost, MS, atNanos + MS);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> volumes(Map<String, Object> history) {
        return (List<Map<String, Object>>) history.get("volumes");
    }

    @Test
    void listsEachKeptWindowPerSecondOldestFirstWithTheNewestWindowsWallClockEnd() {
        VolumeAccounting accounting = accounting(8);
        serve(accounting, "v", 4000, 1000, 0);                 // window [0, 1 s): 1000
        serve(accounting, "v", 4000, 300, 2 * SECOND + 5 * MS); // window [2 s, 3 s): 500; [1 s, 2 s) idle
        serve(accounting, "v", 4000, 200, 2 * SECOND + 9 * MS);
        VolumeHistory perSecond = new VolumeHistory(accounting, VolumeMetrics.CostUnit.BYTES, SECOND, WINDOWS_KEPT);

        // At 3.25 s on the monotonic clock the wall clock reads 1,000,000 ms: window [2 s, 3 s) ended 250 ms ago.
        Map<String, Object> shown = perSecond.history(3 * SECOND + 250 * MS, 1_000_000L);
        assertThat(shown).containsEntry("windowSeconds", 1.0).containsEntry("historySeconds", 10.0)
                .containsEntry("attainedFraction", VolumeAccounting.ATTAINED_FRACTION)
                .containsEntry("volumesOmitted", 0);
        Map<String, Object> volume = volumes(shown).get(0);
        assertThat(volume).containsEntry("volumeId", "v").containsEntry("costUnit", "bytes")
                .containsEntry("reservedCostPerSecond", 4000L).containsEntry("newestWindowEndUnixMs", 999_750L);
        assertThat(volume.get("achievedCostPerSecond")).isEqualTo(List.of(1000.0, 0.0, 500.0));
    }

    @Test
    void bytesAreListedBesideTheCostTheyWereChargedAt() {
        VolumeAccounting accounting = accounting(8);
        accounting.enqueued("v", 4000, 3000, 0);
        accounting.released("v", 3000, 0);
        accounting.completed("v", 3000, 1000, MS, MS); // 1000 bytes charged 3000 (a positioning added)
        Map<String, Object> volume = volumes(new VolumeHistory(accounting, VolumeMetrics.CostUnit.BYTES, SECOND,
                WINDOWS_KEPT).history(SECOND + 250 * MS, 1_000_000L)).get(0);
        assertThat(volume.get("achievedCostPerSecond")).isEqualTo(List.of(3000.0));
        assertThat(volume.get("achievedBytesPerSecond")).isEqualTo(List.of(1000.0));
    }

    @Test
    void positioningChargesAndOutOfOrderArrivalsAreListedPerWindowAndInTotalHereAndOnTheStatusPage() {
        // Proves the continuity counters reach both pages: per 1-s window in the history, totals in both.
        VolumeAccounting accounting = accounting(8);
        accounting.enqueued("v", 4000, 3000, 0);
        accounting.objectAccess("v", true, false, 0);        // a jump: charged a positioning
        accounting.enqueued("v", 4000, 1000, 10 * MS);
        accounting.objectAccess("v", false, true, 10 * MS);  // permuted within the window: out of order
        accounting.enqueued("v", 4000, 1000, SECOND + 10 * MS);
        accounting.objectAccess("v", false, false, SECOND + 10 * MS);  // in order
        accounting.enqueued("v", 4000, 3000, SECOND + 20 * MS);
        accounting.objectAccess("v", true, true, SECOND + 20 * MS);  // both, where the charge is stricter
        Map<String, Object> volume = volumes(new VolumeHistory(accounting, VolumeMetrics.CostUnit.BYTES, SECOND,
                WINDOWS_KEPT).history(2 * SECOND + 250 * MS, 1_000_000L)).get(0);
        assertThat(volume.get("positioningChargedRequestsPerSecond")).isEqualTo(List.of(1.0, 1.0));
        assertThat(volume.get("outOfOrderRequestsPerSecond")).isEqualTo(List.of(1.0, 1.0));
        assertThat(volume).containsEntry("objectAccessRequestsTotal", 4L)
                .containsEntry("positioningChargedRequestsTotal", 2L).containsEntry("outOfOrderRequestsTotal", 2L);
        Map<String, Object> status = new VolumeMetrics(accounting, () -> 2 * SECOND + 250 * MS,
                VolumeMetrics.CostUnit.BYTES, SECOND).status().get(0);
        assertThat(status).containsEntry("objectAccessRequestsTotal", 4L)
                .containsEntry("positioningChargedRequestsTotal", 2L).containsEntry("outOfOrderRequestsTotal", 2L);
    }

    @Test
    void figuresArePerSecondWhateverTheWindowLength() {
        VolumeAccounting halfSecondWindows = new VolumeAccounting(SECOND / 2, WINDOWS_KEPT, 100, 3600 * SECOND, 8);
        serve(halfSecondWindows, "v", 4000, 1000, 0);
        Map<String, Object> volume = volumes(new VolumeHistory(halfSecondWindows, VolumeMetrics.CostUnit.BYTES,
                SECOND / 2, WINDOWS_KEPT).history(SECOND, 5000L)).get(0);
        assertThat(volume.get("achievedCostPerSecond")).isEqualTo(List.of(2000.0, 0.0));
        assertThat(volume).containsEntry("newestWindowEndUnixMs", 5000L);
    }

    @Test
    void aVolumeBeforeItsFirstClosedWindowHasNoPointsAndNoEndTime() {
        VolumeAccounting accounting = accounting(8);
        accounting.enqueued("v", 0, 10, 100 * MS);
        Map<String, Object> volume = volumes(new VolumeHistory(accounting, VolumeMetrics.CostUnit.FOUR_KIB_IOS,
                SECOND, WINDOWS_KEPT).history(500 * MS, 42L)).get(0);
        assertThat(volume).containsEntry("costUnit", "4KiB-io").containsEntry("queueDepthRequests", 1)
                .containsEntry("newestWindowEndUnixMs", null).containsEntry("achievedCostPerSecond", List.of());
        assertThat((Double) volume.get("attainment")).isNaN();
    }

    @Test
    void showsAtMostThirtyTwoVolumesReservedOnesFirstAndCountsTheRest() {
        int volumeCount = VolumeHistory.VOLUMES_SHOWN_MAX + 8;
        VolumeAccounting accounting = accounting(volumeCount);
        for (int index = 0; index < volumeCount; index++) {
            // Every fourth volume is reserved; ids sort the unreserved "a..." volumes before the reserved "z..."
            // ones, so only the rule "reserved first" puts the latter at the top.
            boolean reserved = index % 4 == 0;
            serve(accounting, String.format("%s%02d", reserved ? "z" : "a", index), reserved ? 1000 : 0, 10, 0);
        }
        Map<String, Object> history = new VolumeHistory(accounting, VolumeMetrics.CostUnit.BYTES, SECOND,
                WINDOWS_KEPT).history(SECOND, 0L);
        List<Object> ids = volumes(history).stream().map(volume -> volume.get("volumeId")).toList();
        assertThat(ids).hasSize(VolumeHistory.VOLUMES_SHOWN_MAX);
        assertThat(ids.subList(0, 10)).containsExactly("z00", "z04", "z08", "z12", "z16", "z20", "z24", "z28", "z32",
                "z36");
        assertThat(ids.subList(10, 13)).containsExactly("a01", "a02", "a03");
        assertThat(history).containsEntry("volumesOmitted", 8).containsEntry("volumesShownMax", 32);
    }
}
