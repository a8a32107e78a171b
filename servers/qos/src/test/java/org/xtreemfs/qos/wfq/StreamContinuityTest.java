package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.wfq.StreamContinuity.Continuation;

class StreamContinuityTest {
    private static final long OBJECT = 128 * 1024;
    private static final long GIB = 1L << 30;

    /** How often each continuation was answered for {@code objects} (object numbers, 128 KiB each) in that order. */
    private static Map<Continuation, Integer> arrive(StreamContinuity continuity, String stream, List<Long> objects) {
        Map<Continuation, Integer> counts = new EnumMap<>(Continuation.class);
        for (Continuation continuation : Continuation.values()) {
            counts.put(continuation, 0);
        }
        for (long object : objects) {
            counts.merge(continuity.arrive(stream, object * OBJECT, OBJECT), 1, Integer::sum);
        }
        return counts;
    }

    /** Objects {@code 0..count-1}, each block of {@code block} shuffled (16 in flight arriving in any order). */
    private static List<Long> shuffledInBlocks(int count, int block, long seed) {
        Random random = new Random(seed);
        List<Long> objects = new ArrayList<>();
        for (int start = 0; start < count; start += block) {
            List<Long> one = new ArrayList<>();
            for (long object = start; object < Math.min(count, start + block); object++) {
                one.add(object);
            }
            Collections.shuffle(one, random);
            objects.addAll(one);
        }
        return objects;
    }

    /** Objects {@code 0..count-1}, each arriving up to {@code spread - 1} places late (a sliding window in flight). */
    private static List<Long> jittered(int count, int spread, long seed) {
        Random random = new Random(seed);
        List<long[]> keyed = new ArrayList<>();
        for (long object = 0; object < count; object++) {
            keyed.add(new long[] {object + random.nextInt(spread), object});
        }
        keyed.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        return keyed.stream().map(pair -> pair[1]).toList();
    }

    @Test
    void aRequestAtThePreviousEndIsInOrderAndAnotherStreamsEndDoesNotCount() {
        StreamContinuity continuity = new StreamContinuity(8);
        assertThat(continuity.arrive("a", 0, 100)).isEqualTo(Continuation.POSITIONED);  // nothing known yet
        assertThat(continuity.arrive("a", 100, 50)).isEqualTo(Continuation.IN_ORDER);
        assertThat(continuity.arrive("b", 150, 10)).isEqualTo(Continuation.POSITIONED);  // another stream
        assertThat(continuity.arrive("a", 150, 10)).isEqualTo(Continuation.IN_ORDER);
        assertThat(continuity.arrive("a", 20 * GIB, 10)).isEqualTo(Continuation.POSITIONED);  // a jump
        assertThat(continuity.arrive("a", 20 * GIB + 10, 10)).isEqualTo(Continuation.IN_ORDER);
    }

    @Test
    void sixteenInFlightRequestsArrivingPermutedAreOneStreamWithOnePositioning() {
        // Proves the reorder window: however 16 requests in flight are permuted, and whether the window moves in
        // blocks or slides, only the stream's first request positions; every other permuted one is REORDERED.
        for (long seed = 1; seed <= 20; seed++) {
            for (List<Long> order : List.of(shuffledInBlocks(1024, 16, seed), jittered(1024, 16, seed))) {
                Map<Continuation, Integer> counts = arrive(new StreamContinuity(8), "f", order);
                assertThat(counts.get(Continuation.POSITIONED)).as("seed %d", seed).isEqualTo(1);
                assertThat(counts.get(Continuation.REORDERED)).as("seed %d", seed).isPositive();
            }
        }
        // The worst permutation of one window: the last request first, then the first.
        List<Long> worst = new ArrayList<>(List.of(15L, 0L));
        for (long object = 1; object < 15; object++) {
            worst.add(object);
        }
        assertThat(arrive(new StreamContinuity(8), "f", worst).get(Continuation.POSITIONED)).isEqualTo(1);
    }

    @Test
    void aTrulyRandomStreamPositionsForEveryRequestThatDoesNotLandWithinItsSmallWindow() {
        // Proves the window is the stream's own: scattered 4 KiB requests over a 1 GiB file position whenever they
        // land farther from the previous one than 16 of its requests (16 x 4 KiB), which is all but about 10^-4 of
        // them; one landing that close is a short seek the read-ahead or the elevator absorbs.
        Random random = new Random(42);
        StreamContinuity continuity = new StreamContinuity(8);
        long previousOffset = -GIB;
        int positioned = 0;
        int requests = 20_000;
        for (int request = 0; request < requests; request++) {
            long offset = random.nextLong(GIB / 4096) * 4096;
            Continuation continuation = continuity.arrive("random", offset, 4096);
            if (Math.abs(offset - previousOffset) > 17 * 4096) {
                assertThat(continuation).as("request %d at %d", request, offset).isEqualTo(Continuation.POSITIONED);
            }
            positioned += continuation == Continuation.POSITIONED ? 1 : 0;
            previousOffset = offset;
        }
        assertThat(positioned).isGreaterThanOrEqualTo(requests - requests / 1000);
    }

    @Test
    void aStreamThatJumpsElsewherePositionsOnceAndAJumpBackToItsStartPositionsAgain() {
        StreamContinuity continuity = new StreamContinuity(8);
        List<Long> objects = new ArrayList<>();
        for (long object = 0; object < 1000; object++) {
            objects.add(object);
        }
        for (long object = 80_000; object < 81_000; object++) {  // 10 GiB further on
            objects.add(object);
        }
        assertThat(arrive(continuity, "f", objects).get(Continuation.POSITIONED)).isEqualTo(2);
        // The recent range spans the window only: the stream's start, 10 GiB back, is a new positioning, and so
        // is a request more than two windows (2 x 16 requests) behind the head.
        assertThat(continuity.arrive("f", 0, OBJECT)).isEqualTo(Continuation.POSITIONED);
        arrive(continuity, "f", List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L,
                18L, 19L, 20L, 21L, 22L, 23L, 24L, 25L, 26L, 27L, 28L, 29L, 30L, 31L, 32L, 33L, 34L, 35L, 36L, 37L,
                38L, 39L));
        assertThat(continuity.arrive("f", 0, OBJECT)).isEqualTo(Continuation.POSITIONED);
    }

    @Test
    void memoryStaysBoundedTheLeastRecentlyUsedStreamIsForgottenAndItsMarkWithIt() {
        StreamContinuity continuity = new StreamContinuity(2);
        continuity.arrive("a", 0, 10);
        continuity.mark("a", 7);
        continuity.arrive("b", 0, 10);
        continuity.arrive("a", 10, 10);  // a is now the most recently used
        continuity.arrive("c", 0, 10);  // forgets b
        assertThat(continuity.size()).isEqualTo(2);
        assertThat(continuity.arrive("a", 20, 10)).isEqualTo(Continuation.IN_ORDER);
        assertThat(continuity.markOf("a")).hasValue(7);
        assertThat(continuity.markOf("c")).isEmpty();
        assertThat(continuity.arrive("b", 10, 10)).isEqualTo(Continuation.POSITIONED);  // forgotten
        for (int stream = 0; stream < 10_000; stream++) {
            continuity.arrive("s" + stream, stream, 10);
        }
        assertThat(continuity.size()).isEqualTo(2);
        assertThat(continuity.markOf("a")).isEmpty();
        continuity.mark("never-seen", 1);  // not remembered: nothing is added
        assertThat(continuity.size()).isEqualTo(2);
        assertThatThrownBy(() -> new StreamContinuity(0)).hasMessageContaining("streamsMax");
        assertThatThrownBy(() -> new StreamContinuity(1, -1)).hasMessageContaining("reorderWindowRequests");
    }

    @Test
    void aPermutedStreamIsChargedOnePositioningARandomOneEveryRequestAndAJumpOnce() {
        // Proves the charge follows the rule: on a sequential OSD 16 in-flight 128 KiB requests arriving permuted
        // pay their bytes plus one positioning (the stream's first request), not one per request out of order.
        ShareRule sequential = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        long positioning = ShareRule.bytesPerRandomIo(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        for (long seed = 1; seed <= 20; seed++) {
            StreamContinuity continuity = new StreamContinuity(8);
            long charged = 0;
            for (long object : shuffledInBlocks(16, 16, seed)) {
                charged += sequential.chargedBytes(OBJECT, continuity.continues("f", object * OBJECT, OBJECT));
            }
            assertThat(charged).as("seed %d", seed).isEqualTo(16 * OBJECT + positioning);
        }
        StreamContinuity continuity = new StreamContinuity(8);
        Random random = new Random(7);
        long charged = 0;
        for (int request = 0; request < 100; request++) {
            charged += sequential.chargedBytes(4096, continuity.continues("random", random.nextLong(GIB / 4096) * 4096,
                    4096));
        }
        assertThat(charged).isEqualTo(100 * (4096 + positioning));
        charged = 0;
        for (long object : List.of(0L, 1L, 2L, 3L, 8000L, 8001L, 8002L, 8003L)) {
            charged += sequential.chargedBytes(OBJECT, continuity.continues("jumps", object * OBJECT, OBJECT));
        }
        assertThat(charged).isEqualTo(8 * OBJECT + 2 * positioning);  // the first request and the jump
    }

    @Test
    void byteChargedOsdsAddThePositioningToARequestThatBreaksItsStreamAndIoChargedOnesDoNot() {
        ShareRule sequential = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        long positioning = ShareRule.bytesPerRandomIo(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        assertThat(sequential.chargedBytes(131_072, true)).isEqualTo(131_072);
        assertThat(sequential.chargedBytes(4096, false)).isEqualTo(4096 + positioning);
        ShareRule random = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM));
        assertThat(random.chargedBytes(4096, false)).isEqualTo(4096);
        assertThat(random.costOf(random.chargedBytes(4096, false))).isEqualTo(1);
        assertThat(new CostRule.Bytes().chargedBytes(4096, false)).isEqualTo(4096);
        assertThatThrownBy(() -> new CostRule.Bytes(-1)).hasMessageContaining("positioningBytes");
    }
}
