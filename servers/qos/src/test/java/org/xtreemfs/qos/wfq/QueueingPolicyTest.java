package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.VolumeShare;

class QueueingPolicyTest {
    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final QueueBounds BOUNDS = new QueueBounds(64, 256);

    @Test
    void sharesMapToFlowsByTheOsdsUsageTypeAndUnknownOrMismatchedSharesAreBestEffort() {
        // Proves the one mapping rule: a reservation counts only on an OSD of its type, in that type's unit.
        ShareRule sequential = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        ShareRule random = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM));
        ShareRule bestEffort = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.BEST_EFFORT));
        assertThat(sequential.flowSpec(VolumeShare.sequential(50_000_000))).isEqualTo(FlowSpec.reserved(50_000_000, 1));
        assertThat(random.flowSpec(VolumeShare.random(120))).isEqualTo(FlowSpec.reserved(120, 1));
        assertThat(sequential.flowSpec(VolumeShare.random(120))).isEqualTo(FlowSpec.bestEffort(1));
        assertThat(random.flowSpec(VolumeShare.sequential(50_000_000))).isEqualTo(FlowSpec.bestEffort(1));
        assertThat(bestEffort.flowSpec(VolumeShare.sequential(50_000_000))).isEqualTo(FlowSpec.bestEffort(1));
        // A reserved share of zero, once served as best-effort here, can no longer exist: the share refuses it.
        assertThatThrownBy(() -> VolumeShare.sequential(0)).isInstanceOf(InvalidQosValueException.class);
        assertThat(sequential.flowSpec(VolumeShare.BEST_EFFORT)).isEqualTo(FlowSpec.bestEffort(1));
        assertThat(random.flowSpec(VolumeShare.cold())).isEqualTo(FlowSpec.cold(1));
        assertThat(sequential.flowSpec(VolumeShare.cold())).isEqualTo(FlowSpec.cold(1));
    }

    @Test
    void theSharesWeightAndLimitBecomeTheFlowsWhenTheLimitIsInTheOsdsCostUnit() {
        // Proves ShareRule maps weight always and a limit only where its unit is the OSD's cost unit.
        ShareRule sequential = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        ShareRule random = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM));
        ShareRule bestEffort = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.BEST_EFFORT));
        VolumeShare limitedSequential = new VolumeShare(ReservationType.SEQUENTIAL, 50_000_000, 0, 3, 80_000_000, 0);
        assertThat(sequential.flowSpec(limitedSequential))
                .isEqualTo(new FlowSpec(FlowClass.RESERVED, 50_000_000, 3, 80_000_000));
        VolumeShare limitedRandom = new VolumeShare(ReservationType.RANDOM, 0, 120, 2, 0, 120);
        assertThat(random.flowSpec(limitedRandom)).isEqualTo(new FlowSpec(FlowClass.RESERVED, 120, 2, 120));
        VolumeShare limitedBestEffort = new VolumeShare(ReservationType.BEST_EFFORT, 0, 0, 5, 10_000_000, 0);
        assertThat(bestEffort.flowSpec(limitedBestEffort))
                .isEqualTo(new FlowSpec(FlowClass.BEST_EFFORT, 0, 5, 10_000_000));
        assertThat(sequential.flowSpec(limitedBestEffort))
                .isEqualTo(new FlowSpec(FlowClass.BEST_EFFORT, 0, 5, 10_000_000));
        assertThat(bestEffort.flowSpec(new VolumeShare(ReservationType.COLD, 0, 0, 2, 1_000_000, 0)))
                .isEqualTo(new FlowSpec(FlowClass.COLD, 0, 2, 1_000_000));
        // A limit in the other unit is dropped with the reservation it belongs to: the weight stays.
        assertThat(random.flowSpec(limitedSequential)).isEqualTo(FlowSpec.bestEffort(3));
        assertThat(random.flowSpec(limitedBestEffort)).isEqualTo(FlowSpec.bestEffort(5));
        assertThat(sequential.flowSpec(limitedRandom)).isEqualTo(FlowSpec.bestEffort(2));
    }

    @Test
    void costIsBytesOnSequentialOsdsAndFourKibIosWithOnePositioningPerRequestOnRandomOnes() {
        // Proves the documented cost rule for small and large requests on both OSD types.
        ShareRule sequential = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        assertThat(sequential.costOf(0)).isEqualTo(1);
        assertThat(sequential.costOf(4096)).isEqualTo(4096);
        assertThat(sequential.costOf(1 << 20)).isEqualTo(1 << 20);
        OsdProfile hdd = OsdProfiles.hdd7200(OsdUsageType.RANDOM);
        long bytesPerIo = ShareRule.bytesPerRandomIo(hdd);
        assertThat(bytesPerIo).isEqualTo(hdd.sequentialThroughput().bytesPerSecond(1) / hdd.randomIops());
        ShareRule random = ShareRule.forOsd(hdd);
        assertThat(random.costOf(512)).isEqualTo(1);
        assertThat(random.costOf(4096)).isEqualTo(1);
        assertThat(random.costOf(4096 + bytesPerIo)).isEqualTo(2);
        assertThat(random.costOf(4097 + bytesPerIo)).isEqualTo(3);
        assertThat(ShareRule.bytesPerRandomIo(OsdProfiles.sataSsd(OsdUsageType.RANDOM)))
                .isLessThan(bytesPerIo).isGreaterThanOrEqualTo(4096);
    }

    @Test
    void fairPolicyKeepsAReservationWhereFifoFollowsTheOverloadingVolume() {
        // Proves the policies differ where it matters: a reserved volume with a shallow queue next to a volume
        // keeping 60 requests queued gets its 300/s plus half the spare (650/s) of a 1000/s device with fair, and
        // about 1/61 of the device (16/s, far below its reservation) with FIFO.
        ShareRule rule = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM));
        double fair = reservedRate(new FairPolicy<>(rule, BOUNDS, SECOND_NANOS));
        double fifo = reservedRate(new FifoPolicy<>(256));
        assertThat(fair).isCloseTo(300 + 350, org.assertj.core.data.Percentage.withPercentage(2));
        assertThat(fifo).isLessThan(0.1 * 300);
    }

    /** Device at 1000 cost/s; "reserved" (300 IOPS) keeps 1 request queued, "flood" keeps 60; 4 KiB requests. */
    private static double reservedRate(QueueingPolicy<String> policy) {
        Map<String, Integer> queued = new HashMap<>(Map.of("reserved", 0, "flood", 0));
        Map<String, VolumeShare> shares = Map.of("reserved", VolumeShare.random(300), "flood", VolumeShare.BEST_EFFORT);
        Map<String, Integer> depth = Map.of("reserved", 1, "flood", 60);
        long now = 0;
        long reservedServed = 0;
        while (now < 20 * SECOND_NANOS) {
            for (String volume : List.of("flood", "reserved")) {
                while (queued.get(volume) < depth.get(volume)) {
                    assertThat(policy.enqueue(volume, volume, shares.get(volume), 4096, now).accepted()).isTrue();
                    queued.merge(volume, 1, Integer::sum);
                }
            }
            Decision<String> decision = policy.next(now);
            Decision.Dispatch<String> dispatch = (Decision.Dispatch<String>) decision;
            queued.merge(dispatch.request(), -1, Integer::sum);
            if (dispatch.request().equals("reserved") && now >= 10 * SECOND_NANOS) {
                reservedServed++;
            }
            now += SECOND_NANOS / 1000;
        }
        return reservedServed / 10.0;
    }

    @Test
    void unknownVolumesAreServedBestEffortNeverRejectedAndIdleFlowsAreForgotten() {
        // Proves memory stays bounded as volumes come and go, and a volume the OSD never saw is served.
        FairPolicy<String> policy = new FairPolicy<>(ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL)),
                new QueueBounds(4, 16), SECOND_NANOS);
        long now = 0;
        for (int volume = 0; volume < 1000; volume++) {
            assertThat(policy.enqueue("v" + volume, "v" + volume, VolumeShare.BEST_EFFORT, 4096, now).accepted())
                    .isTrue();
            assertThat(policy.next(now)).isInstanceOf(Decision.Dispatch.class);
            assertThat(policy.flowCount()).as("flows after volume %d", volume).isLessThanOrEqualTo(16);
            now += 1000;
        }
        now += SECOND_NANOS;
        assertThat(policy.next(now)).isInstanceOf(Decision.Empty.class);
        assertThat(policy.flowCount()).as("every idle flow forgotten").isZero();
    }

    @Test
    void aDispatchCountsAsActivitySoAFlowIsForgottenOnlyAfterItsLastRequestLeft() {
        // Proves the idle time runs from a flow's last dispatch, not its last arrival: a volume whose requests
        // waited is not forgotten (losing its tags) right after its last one left.
        FairPolicy<String> policy = new FairPolicy<>(ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM)),
                BOUNDS, SECOND_NANOS);
        policy.enqueue("first", "v", VolumeShare.BEST_EFFORT, 4096, 0);
        policy.enqueue("second", "v", VolumeShare.BEST_EFFORT, 4096, 0);
        assertThat(policy.next(0)).isInstanceOf(Decision.Dispatch.class);
        assertThat(policy.next(SECOND_NANOS * 9 / 10)).isInstanceOf(Decision.Dispatch.class);
        assertThat(policy.next(SECOND_NANOS * 3 / 2)).isInstanceOf(Decision.Empty.class); // sweeps: idle 0.6 s
        assertThat(policy.flowCount()).as("dispatched 0.6 s ago, arrived 1.5 s ago").isEqualTo(1);
        policy.next(SECOND_NANOS * 26 / 10); // sweeps: idle 1.7 s
        assertThat(policy.flowCount()).as("idle 1.7 s").isZero();
    }

    @Test
    void aChangedShareTakesEffectOnTheVolumesNextRequest() {
        // Proves an online reservation change (a new capability) reconfigures the flow without a restart.
        FairPolicy<String> policy = new FairPolicy<>(ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM)),
                BOUNDS, SECOND_NANOS);
        policy.enqueue("old", "v", VolumeShare.BEST_EFFORT, 4096, 0);
        policy.enqueue("e", "other", VolumeShare.BEST_EFFORT, 4096, 0);
        policy.enqueue("new", "v", VolumeShare.random(100), 4096, 0);
        List<Decision.Phase> phases = new ArrayList<>();
        for (int index = 0; index < 3; index++) {
            phases.add(((Decision.Dispatch<String>) policy.next(0)).phase());
        }
        assertThat(phases).contains(Decision.Phase.CONSTRAINT);
    }

    @Test
    void fifoKeepsArrivalOrderAndItsBound() {
        // Proves the baseline: arrival order across volumes, refusal at the bound, removeAll empties it.
        FifoPolicy<String> fifo = new FifoPolicy<>(3);
        fifo.enqueue("a", "x", VolumeShare.random(100), 1, 0);
        fifo.enqueue("b", "y", VolumeShare.BEST_EFFORT, 1, 0);
        fifo.enqueue("c", "x", VolumeShare.random(100), 1, 0);
        assertThat(fifo.enqueue("d", "y", VolumeShare.BEST_EFFORT, 1, 0))
                .isEqualTo(new EnqueueResult.Rejected("y", EnqueueResult.Reason.QUEUE_FULL, 3));
        assertThat(((Decision.Dispatch<String>) fifo.next(0)).request()).isEqualTo("a");
        assertThat(fifo.removeAll()).containsExactly("b", "c");
        assertThat(fifo.next(0)).isInstanceOf(Decision.Empty.class);
    }

    @Test
    void aLimitedFlowRuleMakesTheFairPolicyAnswerWhenToAskAgain() {
        // Proves the time-aware answer: with only limited work queued, next() names the time it becomes eligible.
        FlowRule limited = new FlowRule() {
            @Override
            public FlowSpec flowSpec(String volumeId, VolumeShare share) {
                return FlowSpec.bestEffort(1).withLimit(10);
            }

            @Override
            public long costOf(long payloadBytes) {
                return 1;
            }
        };
        FairPolicy<String> policy = new FairPolicy<>(limited, BOUNDS, SECOND_NANOS);
        policy.enqueue("first", "v", VolumeShare.BEST_EFFORT, 1, 0);
        policy.enqueue("second", "v", VolumeShare.BEST_EFFORT, 1, 0);
        assertThat(((Decision.Dispatch<String>) policy.next(0)).request()).isEqualTo("first");
        assertThat(policy.next(1)).isEqualTo(new Decision.WaitUntil<String>(SECOND_NANOS / 10));
        assertThat(((Decision.Dispatch<String>) policy.next(SECOND_NANOS / 10)).request()).isEqualTo("second");
        assertThat(policy.removeAll()).isEmpty();
    }
}
