package org.xtreemfs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UnitParserTest {
    // Binary units of any case, fractions giving whole bytes, and plain byte counts parse exactly.
    @Test
    void parsesBinarySizes() {
        assertThat(UnitParser.parseBytes("--capacity", "200GiB")).isEqualTo(200L << 30);
        assertThat(UnitParser.parseBytes("--capacity", "128kib")).isEqualTo(131072);
        assertThat(UnitParser.parseBytes("--capacity", "1.5TiB")).isEqualTo(3L << 39);
        assertThat(UnitParser.parseBytes("--capacity", "4096")).isEqualTo(4096);
        assertThat(UnitParser.parseBytes("--capacity", "7 B")).isEqualTo(7);
    }

    // Rates need "/s" unless they are plain bytes per second; IOPS accept an optional suffix.
    @Test
    void parsesRatesAndIops() {
        assertThat(UnitParser.parseBytesPerSecond("--throughput", "150MiB/s")).isEqualTo(150L << 20);
        assertThat(UnitParser.parseBytesPerSecond("--throughput", "1048576")).isEqualTo(1L << 20);
        assertThat(UnitParser.parseIops("--iops", "2000")).isEqualTo(2000);
        assertThat(UnitParser.parseIops("--iops", "2000IOPS")).isEqualTo(2000);
    }

    // Decimal and ambiguous units are refused with the option, the value and the binary unit to use.
    @Test
    void refusesDecimalUnits() {
        assertThatThrownBy(() -> UnitParser.parseBytes("--capacity", "200GB"))
                .hasMessageContaining("--capacity").hasMessageContaining("'200GB'").hasMessageContaining("GiB");
        assertThatThrownBy(() -> UnitParser.parseBytes("--capacity", "10M")).hasMessageContaining("MiB");
        assertThatThrownBy(() -> UnitParser.parseBytesPerSecond("--throughput", "150MB/s"))
                .hasMessageContaining("'150MB/s'").hasMessageContaining("MiB");
    }

    // Garbage, fractions of a byte, missing rate suffixes and overflow are refused naming the value.
    @Test
    void refusesMalformedValues() {
        assertThatThrownBy(() -> UnitParser.parseBytes("--object-size", "lots")).hasMessageContaining("'lots'");
        assertThatThrownBy(() -> UnitParser.parseBytes("--object-size", "0.3KiB")).hasMessageContaining("whole");
        assertThatThrownBy(() -> UnitParser.parseBytes("--object-size", "")).hasMessageContaining("empty");
        assertThatThrownBy(() -> UnitParser.parseBytes("--object-size", "9999999PiB")).hasMessageContaining("too large");
        assertThatThrownBy(() -> UnitParser.parseBytesPerSecond("--throughput", "150MiB"))
                .hasMessageContaining("not a rate");
        assertThatThrownBy(() -> UnitParser.parseIops("--iops", "2k")).hasMessageContaining("'2k'");
    }

    // Formatting picks the largest binary unit that divides the value exactly.
    @Test
    void formatsExactly() {
        assertThat(UnitParser.formatBytes(131072)).isEqualTo("128KiB");
        assertThat(UnitParser.formatBytes(1536L << 20)).isEqualTo("1536MiB");
        assertThat(UnitParser.formatBytes(1000)).isEqualTo("1000B");
        assertThat(UnitParser.formatBytes(0)).isEqualTo("0B");
    }
}
