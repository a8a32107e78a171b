package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The checker of {@link ConsistentReadsTest} finds each kind of violation it claims to, and none in a valid history.
 */
class ConsistencyCheckerTest {
    private static final int SLOT = 64;
    /** Nanoseconds per millisecond: the checker's times are nanoseconds. */
    private static final long MS = 1_000_000;

    @Test
    void aValidHistoryHasNoViolation() {
        ConsistencyChecker checker = new ConsistencyChecker(SLOT);
        checker.wrote("w", 0, 1, 10, 20);
        checker.read("r1", 0, checker.content(0, 1), 15, 18); // the tail had it before the acknowledgement
        checker.read("r2", 0, checker.content(0, 0), 11, 16); // concurrent with the write and the first read
        checker.wrote("w", 0, 2, 30, 40);
        checker.read("r1", 0, checker.content(0, 2), 41, 45);
        assertThat(checker.violations(10)).isEmpty();
        assertThat(checker.reads()).isEqualTo(3);
        assertThat(checker.writes()).isEqualTo(2);
    }

    @Test
    void eachKindOfViolationIsFound() {
        ConsistencyChecker checker = new ConsistencyChecker(SLOT);
        checker.wrote("w", 1, 1, 10, 20);
        checker.read("stale", 1, checker.content(1, 0), 25, 30);    // older than an acknowledged write
        checker.read("r", 2, checker.content(2, 0), 5, 6);
        checker.wrote("w", 2, 1, 10, 20);
        checker.read("first", 2, checker.content(2, 1), 12, 14);    // saw version 1 (uncommitted then, allowed)
        checker.read("back", 2, checker.content(2, 0), 15, 16);     // invoked after "first" returned: backwards
        checker.read("future", 3, checker.content(3, 5), 1, 2);     // never written
        byte[] torn = checker.content(4, 1);
        torn[SLOT - 1] ^= 1;
        checker.read("torn", 4, torn, 1, 2);
        assertThat(checker.violations(10)).hasSize(4).anySatisfy(v -> assertThat(v).contains("stale")
                .contains("older than seen")).anySatisfy(v -> assertThat(v).contains("back").contains("first had read"))
                .anySatisfy(v -> assertThat(v).contains("future").contains("no write produced"))
                .anySatisfy(v -> assertThat(v).contains("torn"));
    }

    /**
     * What a kill may do to a history and what it must not: a write in flight across the kill is acknowledged late
     * (the re-formed chain) and reads see it before that; a write that failed may be read if it stays. The same
     * history with the uncommitted write lost, or with a read going back after the kill, is rejected.
     */
    @Test
    void aKillShapedHistoryPassesAndItsCorruptionsAreRejected() {
        ConsistencyChecker valid = killShapedHistory();
        valid.read("r1", 0, valid.content(0, 3), 400, 410);   // the failed write of version 3 was applied after all
        valid.read("final", 0, valid.content(0, 3), 500, 510);
        assertThat(valid.violations(10)).isEmpty();
        assertThat(valid.failedWrites()).isEqualTo(1);
        assertThat(valid.lastAcknowledgedVersion(0)).isEqualTo(2);
        assertThat(valid.invokedFrom(false, 300)).isEqualTo(2);
        assertThat(valid.invokedFrom(true, 0)).isEqualTo(2);

        ConsistencyChecker lost = killShapedHistory();
        lost.read("r1", 0, lost.content(0, 3), 400, 410);    // uncommitted data, served by the killed member ...
        lost.read("final", 0, lost.content(0, 2), 500, 510); // ... and lost with it
        assertThat(lost.violations(10)).singleElement().satisfies(v -> assertThat(v).contains("final read version 2")
                .contains("r1 had read version 3").contains("r1 read uncommitted data"));

        ConsistencyChecker backwards = killShapedHistory();
        backwards.read("r1", 0, backwards.content(0, 2), 400, 410);
        backwards.read("r2", 0, backwards.content(0, 1), 420, 430); // the re-formed chain served an older copy
        assertThat(backwards.violations(10)).singleElement().satisfies(v -> assertThat(v).contains("r2 read version 1")
                .contains("after r2 had read version 2").doesNotContain("uncommitted"));

        ConsistencyChecker lostAcknowledged = killShapedHistory();
        lostAcknowledged.read("final", 0, lostAcknowledged.content(0, 1), 500, 510); // an acknowledged write lost
        assertThat(lostAcknowledged.violations(10)).singleElement().satisfies(v -> assertThat(v)
                .contains("final read version 1").contains("older than seen").doesNotContain("uncommitted"));
    }

    /**
     * A member held back from 100 to 200 ms: version 2, invoked at 110, cannot commit before 200, so a read returning
     * it at 150 is a dirty read, although nothing later contradicts it (the write is acknowledged at 250 and read
     * again). Without the hold recorded the same history passes; version 1 (invoked before the hold) may be read
     * during it, and version 2 after the hold.
     */
    @Test
    void aReadOfAWriteInvokedWhileAMemberIsHeldBackIsADirtyRead() {
        ConsistencyChecker checker = heldBackHistory();
        checker.read("head", 0, checker.content(0, 2), 140 * MS, 150 * MS); // the head served its dirty copy
        assertThat(checker.violations(10)).isEmpty(); // linearizable: the write could have taken effect at 145
        checker.heldBack("osd1", 100 * MS, 200 * MS);
        assertThat(checker.violations(10)).singleElement().satisfies(v -> assertThat(v)
                .contains("head read version 2 of slot 0 50 ms before osd1 resumed")
                .contains("invoked 10 ms after osd1 was held back").contains("dirty read"));

        ConsistencyChecker clean = heldBackHistory();
        clean.heldBack("osd1", 100 * MS, 200 * MS);
        clean.read("tail", 0, clean.content(0, 1), 120 * MS, 130 * MS);  // committed before the hold
        clean.read("head", 0, clean.content(0, 2), 140 * MS, 210 * MS);  // passed down, answered after the resume
        assertThat(clean.violations(10)).isEmpty();
        assertThat(clean.operations()).hasSize(5);
    }

    /** Version 1 acknowledged before a hold; version 2 invoked during it, acknowledged after it; read at the end. */
    private static ConsistencyChecker heldBackHistory() {
        ConsistencyChecker checker = new ConsistencyChecker(SLOT);
        checker.wrote("w", 0, 1, 10 * MS, 20 * MS);
        checker.wrote("w", 0, 2, 110 * MS, 250 * MS);
        checker.read("final", 0, checker.content(0, 2), 300 * MS, 310 * MS);
        return checker;
    }

    /**
     * Version 1 acknowledged; version 2 in flight across a kill at 150 (acknowledged at 300, read at 200 before);
     * version 3 failed.
     */
    private static ConsistencyChecker killShapedHistory() {
        ConsistencyChecker checker = new ConsistencyChecker(SLOT);
        checker.wrote("w", 0, 1, 10, 20);
        checker.read("r1", 0, checker.content(0, 1), 30, 40);
        checker.wrote("w", 0, 2, 100, 300);
        checker.read("r2", 0, checker.content(0, 2), 200, 210); // the tail had it; the kill delayed the ack
        checker.writeFailed("w", 0, 3, 310);
        return checker;
    }
}
