package org.xtreemfs.foundation.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ByteSizesAndHostPortTest {

    @Test
    void formatThenParseIsIdentity() {
        // Proves byte counts (random from a fixed seed, plus edge cases) survive a round trip.
        SplittableRandom random = new SplittableRandom(20261122L);
        for (int i = 0; i < 10_000; i++) {
            long bytes = i < 3 ? new long[] {0, 1, Long.MAX_VALUE}[i]
                    : random.nextLong(Long.MAX_VALUE) >>> random.nextInt(64)
                            << (random.nextInt(4) * 10);
            if (bytes >= 0) {
                assertThat(ByteSizes.parse(ByteSizes.format(bytes))).isEqualTo(bytes);
            }
        }
    }

    @Test
    void parsesBinaryUnitsAndRejectsOverflow() {
        // Proves unit arithmetic and that sizes beyond a long are errors, not wrap-arounds.
        assertThat(ByteSizes.parse("128KiB")).isEqualTo(131_072L);
        assertThat(ByteSizes.parse("2 gib")).isEqualTo(2L << 30);
        assertThat(ByteSizes.format(131_072L)).isEqualTo("128KiB");
        assertThat(ByteSizes.format(1_000L)).isEqualTo("1000");
        assertThatThrownBy(() -> ByteSizes.parse("9000000PiB")).hasMessage("is too large");
        assertThatThrownBy(() -> ByteSizes.parse("KiB")).hasMessageContaining("is not a size");
        assertThatThrownBy(() -> ByteSizes.parse("-1")).hasMessageContaining("is not a size");
    }

    @Test
    void hostPortRoundTripsIpv4AndIpv6() {
        // Proves host:port parsing, IPv6 brackets and rejection of ambiguous forms.
        assertThat(HostPort.parse("127.0.0.1:80")).isEqualTo(new HostPort("127.0.0.1", 80));
        assertThat(HostPort.parse("[fe80::1]:80").toString()).isEqualTo("[fe80::1]:80");
        assertThatThrownBy(() -> HostPort.parse("fe80::1:80")).hasMessageContaining("brackets");
        assertThatThrownBy(() -> HostPort.parse("h:99999")).hasMessageContaining("out of range");
        assertThatThrownBy(() -> HostPort.parse(":80")).hasMessageContaining("host:port");
        assertThat(new HostPort("h", 1).toUnresolvedAddress().isUnresolved()).isTrue();
    }

    @Test
    void editDistanceCountsSingleEdits() {
        // Proves the suggestion metric used for unknown keys.
        assertThat(SettingsSchema.editDistance("osd.prot", "osd.port")).isEqualTo(2);
        assertThat(SettingsSchema.editDistance("abc", "abc")).isZero();
        assertThat(SettingsSchema.editDistance("", "abc")).isEqualTo(3);
    }
}
