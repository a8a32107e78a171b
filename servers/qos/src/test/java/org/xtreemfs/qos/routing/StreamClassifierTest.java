package org.xtreemfs.qos.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StreamClassifierTest {

    @Test
    void contiguousStreamTurnsSequentialAfterTheConfirmationRun() {
        // Proves a stream becomes SEQUENTIAL only once enough requests follow their predecessor.
        StreamClassifier classifier = StreamClassifier.start(0, 3);
        for (int request = 0; request < 3; request++) {
            classifier = classifier.observe(request * 4096L, 4096);
            assertThat(classifier.pattern()).isEqualTo(AccessPattern.RANDOM);
        }
        classifier = classifier.observe(3 * 4096L, 4096);
        assertThat(classifier.pattern()).isEqualTo(AccessPattern.SEQUENTIAL);
    }

    @Test
    void windowAbsorbsReorderingAndOneStrayRequestDoesNotFlip() {
        // Proves small reordering still counts as following and a single jump keeps the classification.
        StreamClassifier classifier = StreamClassifier.start(64 * 1024, 2);
        long[] offsets = {0, 131072, 65536, 196608, 262144};
        for (long offset : offsets) {
            classifier = classifier.observe(offset, 65536);
        }
        assertThat(classifier.pattern()).isEqualTo(AccessPattern.SEQUENTIAL);
        classifier = classifier.observe(1L << 33, 65536);
        assertThat(classifier.pattern()).isEqualTo(AccessPattern.SEQUENTIAL);
        classifier = classifier.observe(1L << 20, 65536);
        assertThat(classifier.pattern()).isEqualTo(AccessPattern.RANDOM);
    }

    @Test
    void randomOffsetsStayRandom() {
        // Proves a uniformly random 4 KiB stream over 10 GiB is never classified sequential.
        StreamClassifier classifier = StreamClassifier.start(128 * 1024, 2);
        SplittableRandom random = new SplittableRandom(42);
        for (int request = 0; request < 10_000; request++) {
            classifier = classifier.observe(random.nextLong(10L << 30) & ~4095L, 4096);
            assertThat(classifier.pattern()).isEqualTo(AccessPattern.RANDOM);
        }
    }
}
