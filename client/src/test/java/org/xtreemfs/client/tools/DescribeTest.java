package org.xtreemfs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.Units;

class DescribeTest {
    // The figure that motivated the rule: a free capacity printed as "253726324KiB".
    @Test
    void sizesAreHumanAndRoundedDown() {
        assertThat(Describe.size(253726324L * 1024)).isEqualTo("241.75GiB");
        assertThat(Describe.size(Units.tebibytes(2))).isEqualTo("2TiB");
        assertThat(Describe.size(Units.mebibytes(1))).isEqualTo("1MiB");
        assertThat(Describe.size(Units.gibibytes(1) * 19 / 10)).isEqualTo("1945.5MiB");
        assertThat(Describe.size(131072)).isEqualTo("128KiB");
        assertThat(Describe.size(10239)).isEqualTo("10239B");
        assertThat(Describe.size(10240 + 255)).isEqualTo("10KiB");
        assertThat(Describe.size(10240 + 256)).isEqualTo("10.25KiB");
        assertThat(Describe.size(0)).isEqualTo("0B");
        assertThat(Describe.rate(Units.kibibytes(33280))).isEqualTo("32.5MiB/s");
        assertThatThrownBy(() -> Describe.size(-1)).hasMessageContaining("-1");
    }

    // What a tool shows as free can be typed back into mkfs: it parses, never above the real figure, and
    // loses less than 2.5 % of it (fixed seed, sizes across every unit).
    @Test
    void aShownSizeParsesBackToAtMostTheValue() {
        SplittableRandom random = new SplittableRandom(8);
        for (int sample = 0; sample < 20_000; sample++) {
            long bytes = random.nextLong(1L << random.nextInt(1, 60));
            String shown = Describe.size(bytes);
            long parsed = Units.parseBytes("capacity", shown);
            assertThat(parsed).as("%d shown as %s", bytes, shown).isLessThanOrEqualTo(bytes);
            assertThat(bytes - parsed).as("%d shown as %s", bytes, shown).isLessThanOrEqualTo(bytes / 40);
            assertThat(Units.parseBytesPerSecond("throughput", Describe.rate(bytes))).isEqualTo(parsed);
        }
    }
}
