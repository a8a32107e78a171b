package org.xtreemfs.foundation.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.clock.SystemClock;

class OrderedStageTest {

    record Append(String fileId, int sequence) {}

    @Test
    void sameKeyRunsInSubmissionOrderAndNeverConcurrently() {
        // Proves per-key ordering and mutual exclusion under many keys and lanes.
        Map<String, List<Integer>> seenByFile = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> runningByFile = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger handledCount = new AtomicInteger();
        int fileCount = 20;
        int appendsPerFile = 200;
        try (OrderedStage<String, Append> stage = OrderedStage.start("storage", 4, 10_000,
                SystemClock.INSTANCE, append -> {
                    AtomicInteger running = runningByFile.computeIfAbsent(append.fileId(),
                            f -> new AtomicInteger());
                    if (running.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    seenByFile.computeIfAbsent(append.fileId(), f -> new ArrayList<>())
                            .add(append.sequence());
                    running.decrementAndGet();
                    handledCount.incrementAndGet();
                })) {
            for (int sequence = 0; sequence < appendsPerFile; sequence++) {
                for (int file = 0; file < fileCount; file++) {
                    stage.submit("file-" + file, new Append("file-" + file, sequence));
                }
            }
            await().until(() -> handledCount.get() == fileCount * appendsPerFile);
            assertThat(overlaps).hasValue(0);
            List<Integer> expected = new ArrayList<>();
            for (int sequence = 0; sequence < appendsPerFile; sequence++) {
                expected.add(sequence);
            }
            assertThat(seenByFile).hasSize(fileCount);
            seenByFile.values().forEach(seen -> assertThat(seen).isEqualTo(expected));
            assertThat(stage.metrics().handledCount()).isEqualTo(fileCount * appendsPerFile);
            assertThat(stage.metrics().queueCapacity()).isEqualTo(40_000);
        }
    }

    @Test
    void fullLaneRejectsNamingTheLane() throws InterruptedException {
        // Proves each lane is bounded and a full lane rejects with its name and bound.
        CountDownLatch release = new CountDownLatch(1);
        OrderedStage<String, Append> stage = OrderedStage.start("storage", 2, 1,
                SystemClock.INSTANCE, append -> release.await(10, TimeUnit.SECONDS));
        try {
            int lane = stage.laneIndex("f");
            stage.submit("f", new Append("f", 0));
            await().until(() -> stage.metrics().queueLength() == 0);
            stage.submit("f", new Append("f", 1));
            assertThat(stage.offer("f", new Append("f", 2))).isFalse();
            assertThatThrownBy(() -> stage.submit("f", new Append("f", 3)))
                    .isInstanceOf(OverloadedException.class)
                    .hasMessageContaining("stage storage#" + lane + " is overloaded")
                    .hasMessageContaining("full at 1 pending");
        } finally {
            release.countDown();
            assertThat(stage.shutdown(Duration.ofSeconds(5))).isZero();
        }
    }
}
