package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The checker of {@link ConsistentReadsTest} finds each kind of violation it claims to, and none in a valid history. */
class ConsistencyCheckerTest {
    private static final int SLOT = 64;

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
}
