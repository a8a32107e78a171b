package org.xtreemfs.osd.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.osd.metrics.VolumeAccounting.VolumeSnapshot;
import org.xtreemfs.osd.metrics.VolumeAccounting.Window;

/** The accounting driven with explicit nanos: windows, attainment, latency, forgetting and bounds. */
class VolumeAccountingTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    private static VolumeAccounting accounting() {
        return new VolumeAccounting(SECOND, 10, 100, 30 * SECOND, 3);
    }

    private static VolumeSnapshot only(VolumeAccounting accounting, long nowNanos) {
        List<VolumeSnapshot> snapshots = accounting.snapshot(nowNanos);
        assertThat(snapshots).hasSize(1);
        return snapshots.get(0);
    }

    /** One request of {@code cost} entering at {@code atNanos}, released at once and answered after serviceNanos. */
    private static void serve(VolumeAccounting accounting, String volume, long reservation, long cost, long atNanos,
            long serviceNanos) {
        accounting.enqueued(volume, reservation, cost, atNanos);
        accounting.released(volume, cost, atNanos);
        accounting.completed(volume, cost, cost, serviceNanos, atNanos + serviceNanos);
    }

    @Test
    void achievedFiguresArePerClosedWindowAndTheOpenWindowIsNotShown() {
        VolumeAccounting accounting = accounting();
        for (int index = 0; index < 5; index++) {
            serve(accounting, "v", 1000, 100, index * 100 * MS, MS);
        }
        VolumeSnapshot open = only(accounting, 900 * MS);
        assertThat(open.achievedCostPerWindow()).as("window [0, 1 s) still open").isZero();
        VolumeSnapshot closed = only(accounting, SECOND);
        assertThat(closed.achievedCostPerWindow()).isEqualTo(500);
        assertThat(closed.achievedBytesPerWindow()).isEqualTo(500);
        assertThat(closed.achievedRequestsPerWindow()).isEqualTo(5);
        assertThat(closed.reservationCostPerSecond()).isEqualTo(1000);
        assertThat(only(accounting, 2 * SECOND).achievedCostPerWindow()).as("next window idle").isZero();
        assertThat(accounting.windows("v", 2 * SECOND)).extracting(Window::achievedCost).containsExactly(500L, 0L);
    }

    @Test
    void aBackloggedVolumeMeetsItsWindowOnlyAtNinetyPercentOfItsReservation() {
        // Requests wait all the window (depth 1 queued from t = 0 to 1 s): entitled to the whole reservation.
        VolumeAccounting accounting = accounting();
        accounting.enqueued("v", 1000, 1, 0);
        accounting.completed("v", 899, 899, 0, 500 * MS); // 89.9 % of 1000 in window 0
        accounting.completed("v", 900, 900, 0, 1500 * MS); // 90 % in window 1
        VolumeSnapshot snapshot = only(accounting, 2 * SECOND);
        assertThat(accounting.windows("v", 2 * SECOND)).extracting(Window::met).containsExactly(false, true);
        assertThat(snapshot.windowsWithDemand()).isEqualTo(2);
        assertThat(snapshot.windowsMet()).isEqualTo(1);
        assertThat(snapshot.attainment()).isEqualTo(0.5);
        assertThat(snapshot.queueDepthRequests()).isEqualTo(1);
    }

    @Test
    void eachWindowKeepsItsBackloggedTimeAndWhatTheQueueReleasedOfOtherVolumesMeanwhile() {
        // "r" waits from 100 to 500 ms. Of "b", 300 is released at 200 ms (while r waits: counted) and 700 at 550 ms
        // (after: not counted); r's own release is not another volume's, nor is what b had in storage before r came.
        // Window 1: nothing of r waits, b's 50 is not counted.
        VolumeAccounting accounting = new VolumeAccounting(SECOND, 10, 100, 30 * SECOND, 4);
        accounting.enqueued("b", 0, 20, 0);
        accounting.released("b", 20, 0);
        accounting.enqueued("r", 1000, 400, 100 * MS);
        accounting.enqueued("b", 0, 300, 150 * MS);
        accounting.released("b", 300, 200 * MS);
        accounting.completed("b", 20, 20, 200 * MS, 200 * MS);
        accounting.released("r", 400, 500 * MS);
        accounting.enqueued("b", 0, 700, 550 * MS);
        accounting.released("b", 700, 550 * MS);
        accounting.completed("b", 300, 300, 400 * MS, 600 * MS);
        accounting.completed("b", 700, 700, 50 * MS, 600 * MS);
        accounting.completed("r", 400, 400, 700 * MS, 800 * MS);
        accounting.enqueued("b", 0, 50, 1100 * MS);
        accounting.released("b", 50, 1100 * MS);
        accounting.completed("b", 50, 50, 0, 1200 * MS);
        List<Window> windows = accounting.windows("r", 2 * SECOND);
        assertThat(windows).extracting(Window::backloggedNanos).containsExactly(400 * MS, 0L);
        assertThat(windows).extracting(Window::othersReleasedCostWhileBacklogged).containsExactly(300L, 0L);
        assertThat(windows.get(0).met()).as("400 of 90 % x 400").isTrue();
    }

    @Test
    void entitlementScalesWithTheTimeTheVolumeHadRequestsWaiting() {
        // Backlogged for 400 ms of the window: 90 % of 400 = 360 suffice; 350 does not.
        VolumeAccounting met = accounting();
        met.enqueued("v", 1000, 1, 100 * MS);
        met.released("v", 1, 500 * MS);
        met.completed("v", 360, 360, 400 * MS, 600 * MS);
        assertThat(met.windows("v", SECOND)).extracting(Window::met).containsExactly(true);
        VolumeAccounting missed = accounting();
        missed.enqueued("v", 1000, 1, 100 * MS);
        missed.released("v", 1, 500 * MS);
        missed.completed("v", 350, 350, 400 * MS, 600 * MS);
        assertThat(missed.windows("v", SECOND)).extracting(Window::met).containsExactly(false);
    }

    @Test
    void aLightVolumeServedAtOnceMeetsItsReservationAndIdleWindowsDoNotCount() {
        VolumeAccounting accounting = accounting();
        serve(accounting, "v", 1_000_000, 10, 100 * MS, 2 * MS); // asks for 10 of 1 000 000, gets it
        VolumeSnapshot snapshot = only(accounting, 5 * SECOND);
        assertThat(snapshot.windowsWithDemand()).as("windows 1..4 had no demand").isEqualTo(1);
        assertThat(snapshot.windowsMet()).isEqualTo(1);
        assertThat(snapshot.attainment()).isEqualTo(1.0);
    }

    @Test
    void aRefusedRequestIsDemandAndABestEffortVolumeHasNoAttainment() {
        VolumeAccounting accounting = accounting();
        accounting.refused("reserved", 1000, 100 * MS);
        serve(accounting, "best-effort", 0, 100, 100 * MS, MS);
        List<VolumeSnapshot> snapshots = accounting.snapshot(SECOND);
        assertThat(snapshots).extracting(VolumeSnapshot::volumeId).containsExactly("best-effort", "reserved");
        assertThat(snapshots.get(0).windowsWithDemand()).isZero();
        assertThat(snapshots.get(0).attainment()).isNaN();
        assertThat(snapshots.get(1).windowsWithDemand()).isEqualTo(1);
        assertThat(snapshots.get(1).windowsMet()).as("got nothing, entitled to nothing: not backlogged").isEqualTo(1);
    }

    @Test
    void latencyPercentilesAreNearestRankOverTheSamplesKept() {
        VolumeAccounting accounting = new VolumeAccounting(SECOND, 10, 100, 30 * SECOND, 3);
        for (int index = 1; index <= 200; index++) {
            serve(accounting, "v", 0, 1, index * MS, index * MS); // latencies 1..200 ms; the last 100 kept
        }
        VolumeSnapshot snapshot = only(accounting, SECOND);
        assertThat(snapshot.latencySamples()).isEqualTo(100);
        assertThat(snapshot.latencyP50Seconds()).isEqualTo(0.150);
        assertThat(snapshot.latencyP99Seconds()).isEqualTo(0.199);
    }

    @Test
    void windowsKeptAreBoundedAndTotalsKeepCounting() {
        VolumeAccounting accounting = accounting();
        for (int second = 0; second < 25; second++) {
            serve(accounting, "v", 1000, 1000, second * SECOND, MS);
        }
        VolumeSnapshot snapshot = only(accounting, 25 * SECOND);
        assertThat(accounting.windows("v", 25 * SECOND)).hasSize(10);
        assertThat(snapshot.windowsWithDemand()).isEqualTo(10);
        assertThat(snapshot.windowsWithDemandTotal()).isEqualTo(25);
        assertThat(snapshot.windowsMetTotal()).isEqualTo(25);
        assertThat(snapshot.recentAchievedCostPerWindow()).hasSize(10).containsOnly(1000L);
    }

    @Test
    void aLongQuietGapClosesOnlyTheWindowsKept() {
        VolumeAccounting accounting = new VolumeAccounting(SECOND, 10, 100, Long.MAX_VALUE, 3);
        serve(accounting, "v", 1000, 1000, 0, MS);
        List<Window> windows = accounting.windows("v", 1_000_000 * SECOND);
        assertThat(windows).hasSize(10);
        assertThat(windows.get(9).startNanos()).isEqualTo(999_999 * SECOND);
        assertThat(windows).extracting(Window::achievedCost).containsOnly(0L);
    }

    @Test
    void idleVolumesAreForgottenAndVolumesBeyondTheBoundAreNotTracked() {
        VolumeAccounting accounting = accounting(); // 3 volumes, forgotten after 30 s idle
        serve(accounting, "a", 0, 1, 0, MS);
        serve(accounting, "b", 0, 1, 0, MS);
        accounting.enqueued("busy", 0, 1, 0); // outstanding: never forgotten while it waits
        serve(accounting, "late", 0, 1, SECOND, MS);
        assertThat(accounting.untrackedEventCount()).as("the fourth volume's 3 events").isEqualTo(3);
        assertThat(accounting.snapshot(40 * SECOND)).extracting(VolumeSnapshot::volumeId).containsExactly("busy");
        serve(accounting, "late", 0, 1, 40 * SECOND, MS);
        assertThat(accounting.snapshot(41 * SECOND)).extracting(VolumeSnapshot::volumeId)
                .containsExactly("busy", "late");
    }

    @Test
    void invalidBoundsNameTheValues() {
        assertThatThrownBy(() -> new VolumeAccounting(0, 10, 100, SECOND, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 0, 10, 100");
    }
}
