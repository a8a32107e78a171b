package org.xtreemfs.qos.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class UnitsTest {

  @Test
  void parsesBinarySizesIncludingExactFractions() {
    // Proves sizes in every binary unit, with fractions and spacing, become the exact byte count.
    assertThat(Units.parseBytes("capacity", "200GiB")).isEqualTo(200L * 1024 * 1024 * 1024);
    assertThat(Units.parseBytes("capacity", "1.5TiB")).isEqualTo(3L * 512 * 1024 * 1024 * 1024);
    assertThat(Units.parseBytes("capacity", " 4096 ")).isEqualTo(4096);
    assertThat(Units.parseBytes("capacity", "3 kib")).isEqualTo(3 * 1024);
    assertThat(Units.parseBytes("capacity", "1PiB")).isEqualTo(1L << 50);
  }

  @Test
  void refusesDecimalUnitsNamingTheBinaryOne() {
    // Proves MB-style units are refused with the field, the value and the binary alternative in the message.
    assertThatThrownBy(() -> Units.parseBytes("capacity", "200GB"))
        .isInstanceOf(InvalidQosValueException.class)
        .hasMessageContaining("capacity").hasMessageContaining("\"200GB\"").hasMessageContaining("GiB");
    assertThatThrownBy(() -> Units.parseBytesPerSecond("throughput", "150MB/s"))
        .hasMessageContaining("throughput").hasMessageContaining("MiB");
  }

  @Test
  void refusesMalformedValuesNamingFieldAndValue() {
    // Proves each kind of malformed input is refused with a message naming both the field and the value.
    String[][] cases = {{"capacity", "-5GiB"}, {"capacity", "12XB"}, {"capacity", "0.3KiB"}, {"capacity", ""},
        {"capacity", "99999999PiB"}, {"capacity", "GiB"}};
    for (String[] fieldAndValue : cases) {
      assertThatThrownBy(() -> Units.parseBytes(fieldAndValue[0], fieldAndValue[1]))
          .isInstanceOf(InvalidQosValueException.class)
          .hasMessageStartingWith(fieldAndValue[0] + ": \"" + fieldAndValue[1] + "\"");
    }
    assertThatThrownBy(() -> Units.parseBytesPerSecond("throughput", "150MiB"))
        .hasMessageContaining("throughput: \"150MiB\"").hasMessageContaining("150MiB/s");
    assertThatThrownBy(() -> Units.parseIops("iops", "2.5k")).hasMessageStartingWith("iops: \"2.5k\"");
  }

  @Test
  void parsesRatesAndIops() {
    // Proves rates need "/s" unless given in plain bytes per second, and IOPS accept an optional suffix.
    assertThat(Units.parseBytesPerSecond("throughput", "150MiB/s")).isEqualTo(150L << 20);
    assertThat(Units.parseBytesPerSecond("throughput", "1048576")).isEqualTo(1L << 20);
    assertThat(Units.parseIops("iops", "2000")).isEqualTo(2000);
    assertThat(Units.parseIops("iops", "2000 IOPS")).isEqualTo(2000);
  }

  @Property(tries = 2000)
  void formattingIsExactAndParsesBack(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long bytes) {
    // Proves formatBytes loses nothing: parsing its output yields the same byte count.
    assertThat(Units.parseBytes("capacity", Units.formatBytes(bytes))).isEqualTo(bytes);
    assertThat(Units.parseBytesPerSecond("throughput", Units.formatBytesPerSecond(bytes))).isEqualTo(bytes);
  }

  @Test
  void describesOddValuesApproximatelyAndRoundValuesExactly() {
    // Proves messages stay readable: whole units are exact, odd byte counts are rounded and marked with "~".
    assertThat(Units.describeBytes(Units.gibibytes(200))).isEqualTo("200GiB");
    assertThat(Units.describeBytes(Units.mebibytes(110) + 1)).isEqualTo("~110.0MiB");
    assertThat(Units.describeBytes(1500)).isEqualTo("~1.5KiB");
    assertThat(Units.describeBytes(241)).isEqualTo("241B");
  }

  @Test
  void parsesChoicesWithHyphensAndListsTheOptions() {
    // Proves enum names are read case-insensitively with hyphens, and a bad one lists the accepted names.
    assertThat(Units.parseChoice(OsdUsageType.class, "usage_type", "Best-Effort")).isEqualTo(OsdUsageType.BEST_EFFORT);
    assertThatThrownBy(() -> Units.parseChoice(OsdUsageType.class, "usage_type", "fast"))
        .hasMessage("usage_type: \"fast\" is not one of sequential, random, best-effort");
  }
}
