package org.xtreemfs.client.striping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StripeLayoutTest {
    private final StripeLayout layout = new StripeLayout(131072, 3);

    // Object n lives on stripe position n mod width and starts at n * objectSize.
    @Test
    void objectsMapToStripePositionsRoundRobin() {
        assertThat(layout.stripePosition(0)).isZero();
        assertThat(layout.stripePosition(1)).isEqualTo(1);
        assertThat(layout.stripePosition(2)).isEqualTo(2);
        assertThat(layout.stripePosition(3)).isZero();
        assertThat(layout.stripePosition(800)).isEqualTo(800 % 3);
        assertThat(layout.objectStart(5)).isEqualTo(5L * 131072);
        assertThat(layout.objectNumber(131071)).isZero();
        assertThat(layout.objectNumber(131072)).isEqualTo(1);
    }

    // A range inside one object yields one slice with the offset inside that object.
    @Test
    void rangeWithinOneObjectIsOneSlice() {
        assertThat(layout.slices(131072 + 10, 100))
                .containsExactly(new ObjectSlice(1, 10, 100, 0));
    }

    // A range crossing object boundaries is cut exactly at the boundaries.
    @Test
    void rangeAcrossBoundariesIsCutAtBoundaries() {
        List<ObjectSlice> slices = layout.slices(131072 - 5, 131072 + 10);
        assertThat(slices).containsExactly(
                new ObjectSlice(0, 131067, 5, 0),
                new ObjectSlice(1, 0, 131072, 5),
                new ObjectSlice(2, 0, 5, 131077));
    }

    // A slice bound below the object size cuts objects into several requests, still within one object each.
    @Test
    void sliceBoundSplitsLargeObjects() {
        StripeLayout large = new StripeLayout(64 << 20, 2);
        List<ObjectSlice> slices = large.slices((64 << 20) - 10, (16 << 20) + 20, 8 << 20);
        assertThat(slices).containsExactly(
                new ObjectSlice(0, (64 << 20) - 10, 10, 0),
                new ObjectSlice(1, 0, 8 << 20, 10),
                new ObjectSlice(1, 8 << 20, 8 << 20, (8 << 20) + 10),
                new ObjectSlice(1, 16 << 20, 10, (16 << 20) + 10));
        assertThatThrownBy(() -> large.slices(0, 1, 0)).hasMessageContaining("0");
    }

    // An empty range touches no object.
    @Test
    void emptyRangeHasNoSlices() {
        assertThat(layout.slices(12345, 0)).isEmpty();
    }

    // The object count of a size rounds up and is zero for an empty file.
    @Test
    void objectCountRoundsUp() {
        assertThat(layout.objectCount(0)).isZero();
        assertThat(layout.objectCount(1)).isEqualTo(1);
        assertThat(layout.objectCount(131072)).isEqualTo(1);
        assertThat(layout.objectCount(131073)).isEqualTo(2);
    }

    // For random ranges, slices are contiguous, within one object each, and cover the range exactly.
    @Test
    void randomRangesAreCoveredExactly() {
        Random random = new Random(42);
        for (int round = 0; round < 2000; round++) {
            StripeLayout candidate = new StripeLayout(1 + random.nextInt(5000), 1 + random.nextInt(7));
            long offset = random.nextInt(1_000_000);
            int length = random.nextInt(50_000);
            long expectedFileOffset = offset;
            int expectedRequestOffset = 0;
            for (ObjectSlice slice : candidate.slices(offset, length)) {
                assertThat(slice.offsetInRequest()).isEqualTo(expectedRequestOffset);
                assertThat(candidate.objectStart(slice.objectNumber()) + slice.offsetInObject())
                        .isEqualTo(expectedFileOffset);
                assertThat(slice.offsetInObject() + slice.lengthBytes()).isLessThanOrEqualTo(candidate.objectSizeBytes());
                expectedFileOffset += slice.lengthBytes();
                expectedRequestOffset += slice.lengthBytes();
            }
            assertThat(expectedRequestOffset).isEqualTo(length);
        }
    }

    // Invalid layouts and ranges are refused with the bad value in the message.
    @Test
    void invalidArgumentsAreRefused() {
        assertThatThrownBy(() -> new StripeLayout(0, 1)).hasMessageContaining("0");
        assertThatThrownBy(() -> new StripeLayout(4096, 0)).hasMessageContaining("width");
        assertThatThrownBy(() -> layout.slices(-1, 10)).hasMessageContaining("-1");
        assertThatThrownBy(() -> layout.slices(0, -7)).hasMessageContaining("-7");
        assertThatThrownBy(() -> layout.slices(Long.MAX_VALUE, 10)).isInstanceOf(ArithmeticException.class);
    }
}
