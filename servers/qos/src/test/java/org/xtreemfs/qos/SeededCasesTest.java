package org.xtreemfs.qos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** SeededCases: every case runs, -Dqos.seed replays exactly one, and a replay that would run nothing fails. */
class SeededCasesTest {
  private final String before = System.getProperty("qos.seed");

  @AfterEach
  void restoreSeedProperty() {
    if (before == null) {
      System.clearProperty("qos.seed");
    } else {
      System.setProperty("qos.seed", before);
    }
  }

  @Test
  void runsEveryCaseOrOnlyTheNamedSeed() {
    System.clearProperty("qos.seed");
    List<Long> seen = new ArrayList<>();
    assertThat(SeededCases.check(100, 5, random -> seen.add(random.nextLong()))).isEqualTo(5);
    assertThat(seen).hasSize(5).doesNotHaveDuplicates();
    System.setProperty("qos.seed", "103");
    List<Long> replayed = new ArrayList<>();
    assertThat(SeededCases.check(100, 5, random -> replayed.add(random.nextLong()))).isEqualTo(1);
    assertThat(replayed).containsExactly(seen.get(3));
  }

  @Test
  void aSeedOfNoCaseFailsInsteadOfRunningNothing() {
    System.setProperty("qos.seed", "105");
    assertThatThrownBy(() -> SeededCases.check(100, 5, random -> {}))
        .isInstanceOf(AssertionError.class).hasMessageContaining("names no case").hasMessageContaining("100..104");
    System.setProperty("qos.seed", "99");
    assertThatThrownBy(() -> SeededCases.check(100, 5, random -> {})).hasMessageContaining("names no case");
    System.setProperty("qos.seed", "0x10");
    assertThatThrownBy(() -> SeededCases.check(100, 5, random -> {})).hasMessageContaining("is not a seed");
  }

  @Test
  void aFailingCaseNamesItsSeed() {
    System.clearProperty("qos.seed");
    assertThatThrownBy(() -> SeededCases.check(100, 5, random -> {
      throw new IllegalStateException("boom");
    })).hasMessageContaining("seed 100").hasMessageContaining("-Dqos.seed=100").hasMessageContaining("boom");
  }
}
