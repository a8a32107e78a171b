package org.xtreemfs.sim;

/**
 * When a tenant has demand: always, or in a cycle of {@code onNanos} active then {@code offNanos} idle that
 * starts at {@code offsetNanos} (idle before it). A burst is an active phase with a high offered rate.
 * Invariant: {@code onNanos > 0}; {@code offNanos == 0} means always active from the offset on.
 */
record Phases(long offsetNanos, long onNanos, long offNanos) {
    static final Phases ALWAYS = new Phases(0, Long.MAX_VALUE, 0);

    Phases {
        if (offsetNanos < 0 || onNanos <= 0 || offNanos < 0) {
            throw new IllegalArgumentException("phases need offset >= 0, on > 0 and off >= 0, got offset "
                    + offsetNanos + " ns, on " + onNanos + " ns, off " + offNanos + " ns");
        }
    }

    boolean alwaysActive() {
        return offsetNanos == 0 && offNanos == 0;
    }

    boolean activeAt(long nanos) {
        if (nanos < offsetNanos) {
            return false;
        }
        return offNanos == 0 || (nanos - offsetNanos) % (onNanos + offNanos) < onNanos;
    }

    /** {@code nanos} itself when active then, else the start of the next active phase. */
    long nextActiveNanos(long nanos) {
        if (nanos < offsetNanos) {
            return offsetNanos;
        }
        if (activeAt(nanos)) {
            return nanos;
        }
        long period = onNanos + offNanos;
        return offsetNanos + ((nanos - offsetNanos) / period + 1) * period;
    }

    /** True when the tenant is active during all of {@code [startNanos, endNanos)}: a window with full demand. */
    boolean activeThroughout(long startNanos, long endNanos) {
        if (!activeAt(startNanos)) {
            return false;
        }
        if (offNanos == 0) {
            return true;
        }
        long phaseEnd = startNanos - (startNanos - offsetNanos) % (onNanos + offNanos) + onNanos;
        return endNanos <= phaseEnd;
    }

    /** How long the tenant is active within {@code [startNanos, endNanos)}. */
    long activeNanosBetween(long startNanos, long endNanos) {
        long active = 0;
        long at = nextActiveNanos(startNanos);
        while (at < endNanos) {
            long phaseEnd = offNanos == 0 ? endNanos
                    : at - (at - offsetNanos) % (onNanos + offNanos) + onNanos;
            long until = Math.min(phaseEnd, endNanos);
            active += until - at;
            if (until >= endNanos) {
                break;
            }
            at = nextActiveNanos(until);
        }
        return active;
    }
}
