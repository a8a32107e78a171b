package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

/** Byte-array assertions that report the first difference instead of printing megabytes. */
final class Bytes {
    private Bytes() {}

    static void assertSameBytes(byte[] actual, byte[] expected) {
        assertThat(actual.length).as("length").isEqualTo(expected.length);
        int mismatch = Arrays.mismatch(actual, expected);
        assertThat(mismatch).as(mismatch < 0 ? "" : "first difference at byte " + mismatch + ": expected "
                + expected[mismatch] + " but was " + actual[mismatch]).isEqualTo(-1);
    }
}
