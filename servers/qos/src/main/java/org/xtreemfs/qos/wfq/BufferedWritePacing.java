package org.xtreemfs.qos.wfq;

/**
 * Paces buffered writes (unsynced writes the host's write-back acknowledges from memory) by the device time they
 * will cost when flushed: a token bucket of device time in the queue's cost unit, filled at
 * {@code capacityCostPerSecond} (what the device does in one second: one stream's bytes per second on a
 * byte-charged OSD, its random IOPS on an I/O-charged one, the same figures {@link ShareRule} charges by) and holding
 * at most {@code burstNanos} of it. Pure: time is a parameter.
 *
 * <p>Why: the fair queue orders only what waits in it, and a buffered write waits only while the write-back is
 * full. Its dirty limit is in bytes, not in device time, so whenever flushing a run of sequential data frees room
 * fast, every queue drains into memory at once, cheap and expensive writes alike (a best-effort writer's scattered
 * 4 KiB writes, charged a positioning each, got in by the hundred); flushing those then takes a positioning each
 * while freeing 4 KiB each, and every writer of the OSD, the reserved ones included, waits for room for seconds
 * (seen in the simulator, which runs the OSD's policy on the OSD's write-back model: the sequential OSD's
 * reserved volumes at 1.6 of 1.9 MiB/s in whole windows, the disk alternating between flushing 4 KiB writes and
 * floods of admissions). Pacing admits buffered writes into the write-back at the device's rate in cost, in the fair
 * queue's order, so the dirty data's make-up follows the fair shares and never holds more device time than
 * {@code burstNanos} beyond what the device does meanwhile.
 *
 * <p><b>Work-conserving: the pacing opens while the write-back's flusher idles.</b> The profile's rate is what the
 * media does for the calibration's streams; the write-back's sorted flushes do more for buffered writes (on the
 * emulated HDD about 106 random 4 KiB writes a second against the random profile's 40), and pacing at the
 * profile's rate alone left that unused: the random OSD served 40 IOPS under the fair queue against about 100
 * under FIFO. So the OSD reports how full the write-back is ({@link #observeWriteBack}: its dirty bytes and the
 * level at which its background flusher starts), and while the dirty bytes are below that level buffered writes
 * are not held back at all: the flusher is not running for lack of dirty data, nobody waits for room, and holding
 * writes would only leave the media idle. At or above it the bucket paces as before. Where the device flushes
 * faster than the profile's rate (random writes, which the flusher sorts) the write-back therefore settles at its
 * background level with the flusher running continuously, and buffered writes are admitted at the rate it
 * flushes them, always in the fair queue's order (only a few writes refill what a flush freed before the level is
 * reached again, so the next in fair order gets them: reservations first). Where it flushes slower than the
 * profile's rate (interleaved sequential streams; a device that lost capacity) the write-back fills beyond that
 * level to its limit and the bucket holds admissions to the profile's rate, exactly as before this rule; so what
 * pacing is for still holds: the device time admitted at or above the level never exceeds the profile's rate
 * plus the burst. Without an observation (a device whose write-back the OSD cannot see) the bucket always paces.
 *
 * <p>Invariant: while the write-back is at or above its background level, over any interval [a, b] the cost
 * admitted is at most capacityCostPerSecond × (b − a + burst) plus one request's cost (a request is admitted
 * whenever the bucket is not in debt, and may overdraw it; admissions below the level also draw on the bucket but
 * never put it more than the burst in debt). Reads and synced writes are not paced: their completion is the
 * device's work, bounded by the QoS stage's in-flight limit.
 */
public final class BufferedWritePacing {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /**
     * What the OSD (and the simulator, to match it) uses: 100 ms of device time, a few dozen 128 KiB writes on an
     * HDD, little beside the write-back's own 32 MiB background threshold, so a pause in the arrivals costs the
     * device almost nothing while a flood of writes admits at most a tenth of a second of work ahead of the rate.
     */
    public static final long BURST_NANOS_DEFAULT = 100_000_000L;

    private final long capacityCostPerSecond;
    private final long burstNanos;
    /** When the buffered writes admitted so far will have had their device time; eligible while <= now. */
    private long clockNanos = Long.MIN_VALUE;
    /** The write-back's last reported dirty bytes, or -1 before any report (then the bucket always paces). */
    private long dirtyBytes = -1;
    /** The write-back's last reported background level. */
    private long backgroundBytes;

    /**
     * @param capacityCostPerSecond the device's rate in the queue's cost unit, > 0
     * @param burstNanos device time the bucket holds when idle, >= 0
     */
    public BufferedWritePacing(long capacityCostPerSecond, long burstNanos) {
        if (capacityCostPerSecond <= 0) {
            throw new IllegalArgumentException("capacityCostPerSecond must be > 0, was " + capacityCostPerSecond);
        }
        if (burstNanos < 0) {
            throw new IllegalArgumentException("burstNanos must be >= 0, was " + burstNanos);
        }
        this.capacityCostPerSecond = capacityCostPerSecond;
        this.burstNanos = burstNanos;
    }

    /**
     * The host's write-back in front of the device now holds {@code dirtyBytes} (acknowledged, not yet on the
     * media) and starts its background flusher at {@code backgroundBytes}: values the OSD measures (or the
     * simulator's model reports) before each decision; the latest report holds until the next.
     */
    public void observeWriteBack(long dirtyBytes, long backgroundBytes) {
        if (dirtyBytes < 0 || backgroundBytes < 0) {
            throw new IllegalArgumentException("dirtyBytes and backgroundBytes must be >= 0, were " + dirtyBytes
                    + " and " + backgroundBytes);
        }
        this.dirtyBytes = dirtyBytes;
        this.backgroundBytes = backgroundBytes;
    }

    /** True while the last report showed the write-back below its background level: buffered writes pass. */
    public boolean flusherIdle() {
        return dirtyBytes >= 0 && dirtyBytes < backgroundBytes;
    }

    /** The earliest time from {@code nowNanos} at which a buffered write may be admitted. */
    public long eligibleNanos(long nowNanos) {
        return flusherIdle() ? nowNanos : Math.max(nowNanos, clockNanos);
    }

    /** A buffered write of {@code cost} is admitted at {@code nowNanos} (it was eligible). */
    public void charge(long cost, long nowNanos) {
        long fromNanos = clockNanos == Long.MIN_VALUE ? nowNanos - burstNanos : Math.max(clockNanos, nowNanos - burstNanos);
        clockNanos = fromNanos + Math.max(1, cost * NANOS_PER_SECOND / capacityCostPerSecond);
        if (flusherIdle()) {
            // Admitted without waiting: in debt by at most the burst once the flusher runs.
            clockNanos = Math.min(clockNanos, nowNanos + burstNanos);
        }
    }

    public long capacityCostPerSecond() {
        return capacityCostPerSecond;
    }

    public long burstNanos() {
        return burstNanos;
    }
}
