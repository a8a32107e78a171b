package org.xtreemfs.qos.scheduler;

import org.xtreemfs.qos.model.Dimension;

/**
 * One dimension a rejected reservation asks too much of: the most of it that would be admitted now with the
 * reservation's other dimensions as requested.
 */
public record Shortfall(Dimension dimension, long requested, long largestAdmissible) {
  public long shortBy() {
    return requested - largestAdmissible;
  }

  @Override
  public String toString() {
    return dimension.fieldName() + " short by " + dimension.describe(shortBy()) + " (" + dimension.describe(requested)
        + " requested, at most " + dimension.describe(largestAdmissible) + " admissible with the rest as requested)";
  }
}
