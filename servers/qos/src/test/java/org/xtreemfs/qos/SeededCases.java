package org.xtreemfs.qos;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reproducible random test cases: case {@code i} of a property draws from {@code new SplittableRandom(baseSeed + i)},
 * and a failure names its case and seed. {@code -Dqos.seed=S} runs only the case with seed S; a property that
 * has no case S fails rather than pass without running anything.
 */
public final class SeededCases {
  private static final String SEED_PROPERTY = "qos.seed";
  /** One draw in this many of {@link #between} returns a bound, so bounds are always tried. */
  private static final int EDGE_ONE_IN = 16;

  private SeededCases() {}

  /**
   * Runs {@code check} for {@code count} cases; returns how many ran (1 when -Dqos.seed is given). A seed
   * that is no case of this property, or not a number, fails: a replay that ran nothing must not pass.
   */
  public static int check(long baseSeed, int count, Consumer<SplittableRandom> check) {
    OptionalLong only = onlySeed();
    if (only.isPresent()) {
      long seed = only.getAsLong();
      if (seed < baseSeed || seed - baseSeed >= count) {
        throw new AssertionError(String.format("-D%s=%d names no case of this property (its seeds are %d..%d):"
            + " run the test whose failure printed that seed", SEED_PROPERTY, seed, baseSeed, baseSeed + count - 1));
      }
      runCase((int) (seed - baseSeed), count, seed, check);
      return 1;
    }
    for (int index = 0; index < count; index++) {
      runCase(index, count, baseSeed + index, check);
    }
    return count;
  }

  private static void runCase(int index, int count, long seed, Consumer<SplittableRandom> check) {
    try {
      check.accept(new SplittableRandom(seed));
    } catch (AssertionError | RuntimeException failure) {
      throw new AssertionError(String.format("case %d of %d failed, seed %d (rerun alone with -D%s=%d): %s",
          index, count, seed, SEED_PROPERTY, seed, failure.getMessage()), failure);
    }
  }

  /** The seed of -Dqos.seed, if given. */
  static OptionalLong onlySeed() {
    String only = System.getProperty(SEED_PROPERTY);
    if (only == null || only.isBlank()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(only.trim()));
    } catch (NumberFormatException notNumber) {
      throw new AssertionError("-D" + SEED_PROPERTY + "='" + only + "' is not a seed (a decimal number)");
    }
  }

  /** A value in [min, max], the bounds themselves more often than uniform. */
  public static int between(SplittableRandom random, int min, int max) {
    return (int) between(random, (long) min, (long) max);
  }

  /** A value in [min, max], the bounds themselves more often than uniform. */
  public static long between(SplittableRandom random, long min, long max) {
    if (random.nextInt(EDGE_ONE_IN) == 0) {
      return random.nextBoolean() ? min : max;
    }
    return max == Long.MAX_VALUE ? min + random.nextLong(max - min) : random.nextLong(min, max + 1);
  }

  public static <T> T oneOf(SplittableRandom random, T[] values) {
    return values[random.nextInt(values.length)];
  }

  /** A list of {@code between(minSize, maxSize)} elements drawn by {@code element}. */
  public static <T> List<T> listOf(SplittableRandom random, int minSize, int maxSize,
      Function<SplittableRandom, T> element) {
    int size = between(random, minSize, maxSize);
    List<T> list = new ArrayList<>(size);
    for (int index = 0; index < size; index++) {
      list.add(element.apply(random));
    }
    return list;
  }
}
