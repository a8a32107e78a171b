package org.xtreemfs.qos;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reproducible random test cases: case {@code i} of a property draws from {@code new SplittableRandom(baseSeed + i)},
 * and a failure names its case and seed. {@code -Dqos.seed=S} runs only the case with seed S.
 */
public final class SeededCases {
  private static final String SEED_PROPERTY = "qos.seed";
  /** One draw in this many of {@link #between} returns a bound, so bounds are always tried. */
  private static final int EDGE_ONE_IN = 16;

  private SeededCases() {}

  /** Runs {@code check} for {@code count} cases; returns how many ran (fewer only when -Dqos.seed is given). */
  public static int check(long baseSeed, int count, Consumer<SplittableRandom> check) {
    String only = System.getProperty(SEED_PROPERTY);
    int ran = 0;
    for (int index = 0; index < count; index++) {
      long seed = baseSeed + index;
      if (only != null && !only.isBlank() && Long.parseLong(only.trim()) != seed) {
        continue;
      }
      try {
        check.accept(new SplittableRandom(seed));
      } catch (AssertionError | RuntimeException failure) {
        throw new AssertionError(String.format("case %d of %d failed, seed %d (rerun alone with -D%s=%d): %s",
            index, count, seed, SEED_PROPERTY, seed, failure.getMessage()), failure);
      }
      ran++;
    }
    return ran;
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
