package org.xtreemfs.sim;

import java.util.Collection;

/** Small numeric helpers for the scenario invariants. */
final class Statistics {
    private Statistics() {}

    /** Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all equal, 1/n when one takes everything. */
    static double jainIndex(Collection<Double> values) {
        double sum = 0;
        double sumOfSquares = 0;
        for (double value : values) {
            sum += value;
            sumOfSquares += value * value;
        }
        return values.isEmpty() || sumOfSquares == 0 ? 1.0 : sum * sum / (values.size() * sumOfSquares);
    }

    static double mean(Collection<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    static double max(Collection<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static double min(Collection<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }
}
