package org.xtreemfs.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.device.IoRequest;

class SimulationPartsTest {

    @Test
    void eventsRunInTimeOrderAndTiesInSchedulingOrder() {
        // Proves the event order that makes runs reproducible.
        Simulation simulation = new Simulation(100);
        List<String> order = new ArrayList<>();
        simulation.schedule(20, () -> order.add("late"));
        simulation.schedule(10, () -> order.add("first"));
        simulation.schedule(10, () -> order.add("second"));
        simulation.runUntil(100);
        assertThat(order).containsExactly("first", "second", "late");
        assertThatThrownBy(() -> simulation.schedule(5, () -> { })).hasMessageContaining("past");
    }

    @Test
    void runawayScenariosHitTheEventBound() {
        // Proves the event loop is bounded even if a scenario keeps rescheduling itself.
        Simulation simulation = new Simulation(50);
        Runnable[] forever = new Runnable[1];
        forever[0] = () -> simulation.schedule(simulation.nowNanos() + 1, forever[0]);
        simulation.schedule(0, forever[0]);
        assertThatThrownBy(() -> simulation.runUntil(Long.MAX_VALUE)).hasMessageContaining("50 events");
    }

    @Test
    void writeBackBufferHoldsItsBoundAndFlushesInElevatorOrder() {
        // Proves the buffer refuses writes beyond its size and merges contiguous pages in ascending order.
        WriteBackBuffer buffer = new WriteBackBuffer(5 * 4096, 8192, 4096, 2);
        for (long page : new long[] {9, 3, 4, 1, 5}) {
            assertThat(buffer.tryAbsorb(IoRequest.write(page * 4096, 4096))).isTrue();
        }
        assertThat(buffer.tryAbsorb(IoRequest.write(20 * 4096, 4096))).isFalse();
        assertThat(buffer.tryAbsorb(IoRequest.write(3 * 4096, 4096))).as("rewrite of a dirty page").isTrue();
        assertThat(buffer.nextFlush()).isEqualTo(IoRequest.syncedWrite(4096, 4096));
        assertThat(buffer.nextFlush()).isEqualTo(IoRequest.syncedWrite(3 * 4096, 8192));
        assertThat(buffer.nextFlush()).isEqualTo(IoRequest.syncedWrite(5 * 4096, 4096));
        assertThat(buffer.pendingBytes()).as("pages under writeback still count").isEqualTo(5 * 4096);
        buffer.flushed(4096);
        assertThat(buffer.tryAbsorb(IoRequest.write(20 * 4096, 4096))).isTrue();
    }

    @Test
    void backgroundFlushAlternatesBatchesWithQueuedRequests() {
        // Proves writeback above the threshold runs in bounded batches and then lets queued requests through.
        WriteBackBuffer buffer = new WriteBackBuffer(8 * 4096, 4096, 2 * 4096, 3);
        for (long page = 0; page < 6; page++) {
            assertThat(buffer.tryAbsorb(IoRequest.write(page * 8192, 4096))).isTrue();
        }
        assertThat(buffer.backgroundFlushDue(true)).isTrue();
        buffer.nextFlush();
        assertThat(buffer.backgroundFlushDue(true)).as("batch under way").isTrue();
        buffer.nextFlush();
        for (int served = 0; served < 3; served++) {
            assertThat(buffer.backgroundFlushDue(true)).as("queued request %d has its turn", served).isFalse();
            buffer.requestServed();
        }
        assertThat(buffer.backgroundFlushDue(true)).as("next batch: still above the threshold").isTrue();
        assertThat(new WriteBackBuffer(8 * 4096, 4096, 4096, 3).backgroundFlushDue(false))
                .as("nothing dirty, nothing due").isFalse();
    }

    @Test
    void jainIndexSpansOneToOneOverN() {
        // Proves the fairness metric used by the invariants.
        assertThat(Statistics.jainIndex(List.of(3.0, 3.0, 3.0))).isEqualTo(1.0);
        assertThat(Statistics.jainIndex(List.of(1.0, 0.0, 0.0, 0.0))).isEqualTo(0.25);
        assertThat(Statistics.jainIndex(List.of(1.0, 2.0))).isBetween(0.9, 0.91);
    }
}
