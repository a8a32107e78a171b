package org.xtreemfs.qos.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.SeededCases;

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

  @Test
  void formattingIsExactAndParsesBack() {
    // Proves formatBytes loses nothing: parsing its output yields the same byte count.
    SeededCases.check(0x0417_5000L, 2000, random -> {
      long bytes = byteCount(random);
      assertThat(Units.parseBytes("capacity", Units.formatBytes(bytes))).as("bytes %d", bytes).isEqualTo(bytes);
      assertThat(Units.parseBytesPerSecond("throughput", Units.formatBytesPerSecond(bytes))).as("bytes %d", bytes)
          .isEqualTo(bytes);
    });
  }

  /** Any long in [0, Long.MAX_VALUE]: every magnitude equally likely, a third of them whole KiB..PiB multiples. */
  private static long byteCount(SplittableRandom random) {
    long value = SeededCases.between(random, 0, Long.MAX_VALUE) >>> random.nextInt(63);
    if (random.nextInt(3) == 0) {
      int unitBits = 10 * SeededCases.between(random, 1, 5);
      value = (value >>> unitBits) << unitBits;
    }
    return value;
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
