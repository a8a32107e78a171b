package org.xtreemfs.osd.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.osd.locks.LockManager.Outcome;

class LockManagerTest {
    private static final String FILE = "vol:1";
    private static final long END = HeldLock.TO_END;
    private static final LockOwner A = new LockOwner("client-a", 1);
    private static final LockOwner A2 = new LockOwner("client-a", 2);
    private static final LockOwner B = new LockOwner("client-b", 1);

    private final ManualClock clock = new ManualClock();
    private final LockManager locks = new LockManager(clock, 10_000, 8, 12);

    private static HeldLock posix(LockOwner owner, long start, long end, boolean exclusive) {
        return new HeldLock(owner, 100, start, end, exclusive, LockKind.POSIX);
    }

    private static HeldLock flock(LockOwner owner, boolean exclusive) {
        return new HeldLock(owner, 100, 0, END, exclusive, LockKind.FLOCK);
    }

    private Outcome acquire(HeldLock lock) {
        return locks.acquire(FILE, lock);
    }

    private List<String> ranges() {
        return locks.locksOf(FILE).stream().map(lock -> lock.owner().clientUuid() + "/" + lock.owner().owner() + " "
                + lock.kind() + (lock.exclusive() ? " W " : " R ") + lock.startBytes() + "-"
                + (lock.endBytes() == END ? "EOF" : String.valueOf(lock.endBytes()))).toList();
    }

    @Test
    void sharedLocksCoexistAndExclusiveOnesConflictOnOverlapOnly() {
        // Proves the POSIX conflict rule: read/read never conflicts; a write lock conflicts with any overlap.
        assertThat(acquire(posix(A, 0, 100, false))).isInstanceOf(Outcome.Done.class);
        assertThat(acquire(posix(B, 50, 150, false))).isInstanceOf(Outcome.Done.class);
        Outcome conflict = acquire(posix(B, 99, 100, true));
        assertThat(conflict).isInstanceOf(Outcome.Conflict.class);
        assertThat(((Outcome.Conflict) conflict).holder().owner()).isEqualTo(A);
        assertThat(acquire(posix(B, 150, 200, true))).isInstanceOf(Outcome.Done.class);
        assertThat(acquire(posix(A, 100, 101, true))).isInstanceOf(Outcome.Conflict.class);
        assertThat(locks.check(FILE, posix(A, 200, END, true))).isEmpty();
        assertThat(locks.check(FILE, posix(A, 199, 200, false)).orElseThrow().owner()).isEqualTo(B);
    }

    @Test
    void oneOwnersRangesMergeAndSplitAsPosixDescribes() {
        // Proves same-mode ranges merge (overlapping and adjacent), other-mode ranges split, unlock splits.
        acquire(posix(A, 0, 10, false));
        acquire(posix(A, 20, 30, false));
        acquire(posix(A, 10, 20, false));
        assertThat(ranges()).containsExactly("client-a/1 POSIX R 0-30");
        acquire(posix(A, 10, 15, true));
        assertThat(ranges()).containsExactly("client-a/1 POSIX R 0-10", "client-a/1 POSIX W 10-15",
                "client-a/1 POSIX R 15-30");
        acquire(posix(A, 12, 20, true));
        assertThat(ranges()).containsExactly("client-a/1 POSIX R 0-10", "client-a/1 POSIX W 10-20",
                "client-a/1 POSIX R 20-30");
        locks.release(FILE, A, LockKind.POSIX, 5, 25);
        assertThat(ranges()).containsExactly("client-a/1 POSIX R 0-5", "client-a/1 POSIX R 25-30");
        acquire(posix(A, 28, END, false));
        assertThat(ranges()).containsExactly("client-a/1 POSIX R 0-5", "client-a/1 POSIX R 25-EOF");
        locks.release(FILE, A, LockKind.POSIX, 0, END);
        assertThat(ranges()).isEmpty();
        assertThat(locks.lockCount()).isZero();
        assertThat(locks.clientCount()).isZero();
    }

    @Test
    void aRelockOfTheSameRangeIsIdempotentSoARetriedAcquireIsHarmless() {
        // Proves acquiring a range the owner already holds changes nothing (the client retries acquires).
        acquire(posix(A, 0, 10, true));
        assertThat(acquire(posix(A, 0, 10, true))).isInstanceOf(Outcome.Done.class);
        assertThat(ranges()).containsExactly("client-a/1 POSIX W 0-10");
        assertThat(locks.lockCount()).isEqualTo(1);
    }

    @Test
    void ownersOfOneClientConflictWithEachOther() {
        // Proves two processes on one mount (same client, different lock owners) exclude each other.
        acquire(posix(A, 0, END, true));
        assertThat(acquire(posix(A2, 5, 6, false))).isInstanceOf(Outcome.Conflict.class);
        assertThat(acquire(flock(A2, true))).isInstanceOf(Outcome.Done.class);
    }

    @Test
    void flockLocksAreWholeFileConvertibleAndIndependentOfPosixLocks() {
        // Proves flock semantics: shared/shared coexist, exclusive conflicts, conversion, and no POSIX interaction.
        acquire(posix(B, 0, END, true));
        assertThat(acquire(flock(A, false))).isInstanceOf(Outcome.Done.class);
        assertThat(acquire(flock(B, false))).isInstanceOf(Outcome.Done.class);
        assertThat(acquire(flock(B, true))).isInstanceOf(Outcome.Conflict.class);
        locks.release(FILE, A, LockKind.FLOCK, 0, END);
        assertThat(acquire(flock(B, true))).isInstanceOf(Outcome.Done.class);
        assertThat(ranges()).containsExactly("client-b/1 POSIX W 0-EOF", "client-b/1 FLOCK W 0-EOF");
        assertThat(acquire(flock(A, false))).isInstanceOf(Outcome.Conflict.class);
        locks.release(FILE, B, LockKind.FLOCK, 0, END);
        assertThat(ranges()).containsExactly("client-b/1 POSIX W 0-EOF");
    }

    @Test
    void locksOfAClientThatStopsRenewingExpireAfterTheLease() {
        // Proves the lease: renewals and lock calls keep locks; silence for leaseMs drops every lock of the client.
        acquire(posix(A, 0, 10, true));
        acquire(flock(A2, true));
        acquire(posix(B, 20, 30, true));
        clock.advanceMillis(6_000);
        assertThat(locks.renew("client-a")).isEqualTo(2);
        clock.advanceMillis(6_000);
        assertThat(acquire(posix(B, 0, 10, true))).isInstanceOf(Outcome.Conflict.class);
        assertThat(ranges()).contains("client-a/1 POSIX W 0-10").doesNotContain("client-b/1 POSIX W 20-30");
        clock.advanceMillis(10_000);
        assertThat(acquire(posix(B, 0, 10, true))).isInstanceOf(Outcome.Done.class);
        assertThat(ranges()).containsExactly("client-b/1 POSIX W 0-10");
        assertThat(locks.renew("client-a")).isZero();
        assertThat(locks.expiredClientCount()).isEqualTo(2);
    }

    @Test
    void boundsPerFileAndInTotalRefuseWithTheSettingName() {
        // Proves both bounds: 8 per file, 12 in total; a split by unlock counts too; nothing changes on refusal.
        for (int i = 0; i < 8; i++) {
            assertThat(acquire(posix(A, i * 10L, i * 10L + 5, true))).isInstanceOf(Outcome.Done.class);
        }
        Outcome perFile = acquire(posix(A, 100, 105, true));
        assertThat(perFile).isInstanceOf(Outcome.TooManyLocks.class);
        assertThat(((Outcome.TooManyLocks) perFile).message()).contains("osd.locks.perFileMax").contains("8");
        assertThat(locks.release(FILE, A, LockKind.POSIX, 1, 2)).isInstanceOf(Outcome.TooManyLocks.class);
        assertThat(locks.lockCount()).isEqualTo(8);
        for (int i = 0; i < 4; i++) {
            assertThat(locks.acquire("vol:2", posix(B, i * 10L, i * 10L + 5, true))).isInstanceOf(Outcome.Done.class);
        }
        Outcome total = locks.acquire("vol:3", posix(B, 0, 1, true));
        assertThat(((Outcome.TooManyLocks) total).message()).contains("osd.locks.max").contains("13");
        assertThat(locks.locksOf("vol:3")).isEmpty();
        assertThat(acquire(posix(A, 0, 100, true))).isInstanceOf(Outcome.Done.class);  // merging shrinks the table
        assertThat(locks.lockCount()).isEqualTo(5);
    }

    @Test
    void rangesFromTheWireAreCheckedAndLengthZeroMeansToTheEnd() {
        // Proves the protocol's offset/length conversion: 0 = to EOF, no overflow past the largest off_t.
        assertThat(HeldLock.ofRange(A, 1, 5, 0, false, LockKind.POSIX).endBytes()).isEqualTo(END);
        assertThat(HeldLock.ofRange(A, 1, 5, 10, false, LockKind.POSIX).lengthBytes()).isEqualTo(10);
        assertThat(HeldLock.ofRange(A, 1, 5, 10, false, LockKind.FLOCK).startBytes()).isZero();
        assertThatThrownBy(() -> HeldLock.ofRange(A, 1, -1, 1, false, LockKind.POSIX))
                .hasMessageContaining("18446744073709551615");
        assertThatThrownBy(() -> HeldLock.ofRange(A, 1, Long.MAX_VALUE - 1, 2, false, LockKind.POSIX))
                .hasMessageContaining("ends beyond");
    }
}
