package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.clock.ManualClock;

class DeletionQueueTest {
    @TempDir
    Path folder;

    private final ManualClock clock = new ManualClock();

    @Test
    void entriesBecomeDueOnlyAfterTheDelay() throws IOException {
        // Proves a deletion is not handed out before osd.deletion.delayMs has passed.
        DeletionQueue queue = new DeletionQueue(folder, clock, 60_000, 100);
        assertThat(queue.enqueue("v:1")).isTrue();
        clock.advanceMillis(59_999);
        assertThat(queue.takeDue()).isEmpty();
        assertThat(queue.nextDueMillis()).hasValue(clock.wallClockMillis() + 1);
        clock.advanceMillis(1);
        assertThat(queue.takeDue()).containsExactly("v:1");
        assertThat(queue.takeDue()).isEmpty();
        assertThat(queue.isPending("v:1")).isTrue();
        queue.complete("v:1");
        assertThat(queue.pendingCount()).isZero();
    }

    @Test
    void pendingDeletionsResumeAfterARestart() throws IOException {
        // Proves entries written before a restart are found by a new queue on the same folder, with their due
        // times, and that completed entries stay gone.
        DeletionQueue before = new DeletionQueue(folder, clock, 1_000, 100);
        before.enqueue("v:1");
        before.enqueue("weird/id:2");
        clock.advanceMillis(1_000);
        assertThat(before.takeDue()).containsExactly("v:1", "weird/id:2");
        before.complete("v:1");

        DeletionQueue after = new DeletionQueue(folder, clock, 1_000, 100);
        assertThat(after.pendingCount()).isEqualTo(1);
        assertThat(after.takeDue()).containsExactly("weird/id:2");
        after.complete("weird/id:2");
        assertThat(new DeletionQueue(folder, clock, 1_000, 100).pendingCount()).isZero();
    }

    @Test
    void aFullQueueRefusesAndARetriedEntryIsDueAgain() throws IOException {
        // Proves the queue is bounded and retryLater hands an entry out again.
        DeletionQueue queue = new DeletionQueue(folder, clock, 0, 2);
        assertThat(queue.enqueue("v:1")).isTrue();
        assertThat(queue.enqueue("v:2")).isTrue();
        assertThat(queue.enqueue("v:1")).isTrue();
        assertThat(queue.enqueue("v:3")).isFalse();
        assertThat(queue.takeDue()).containsExactly("v:1", "v:2");
        queue.retryLater("v:2");
        queue.complete("v:1");
        assertThat(queue.takeDue()).containsExactly("v:2");
    }
}
