package org.xtreemfs.osd.storage;

import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.qos.device.DeviceLayout;
import org.xtreemfs.qos.device.DeviceModel;
import org.xtreemfs.qos.device.DeviceState;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.device.ServiceResult;
import org.xtreemfs.qos.wfq.StreamContinuity;

/**
 * A disk that behaves like a qos.device model: every access is served by the model one at a time, in the
 * order the accesses arrive, at max(now, the device's next start), with its device offset from
 * {@link DeviceLayout} (the same mapping the calibration pattern's derivation uses); the caller then waits
 * until the model's completion time. A write carries its sync flag to the model and an fsync flushes the file's
 * region ({@link DeviceModel#flush}), so a model with the host's write-back ({@code WriteBackCache}) acknowledges
 * unsynced writes from memory and synced writes and fsyncs only once the data is on its media. The model's state advances under this object's monitor; waiting happens
 * outside it, so an SSD model's channels serve several accesses at once and an HDD's queue behind its head.
 * Time is the {@link Clock}'s monotonic time; the {@link Waiter} lets a test with a ManualClock move time
 * itself instead of sleeping.
 *
 * <p><b>Host turnaround.</b> A stream that sends its next request when the previous one completes reaches the
 * device a little later than the completion: the waiting thread must wake and the real I/O must run, on this
 * project's shared 2-core machines often for several milliseconds under load. A real drive hides such a gap for a
 * sequential stream (read-ahead for reads, its write cache for writes); a model would instead charge a full
 * rotation for every read or write-through request the host sends late. So an access that continues its file's
 * stream, arriving at most {@value #TURNAROUND_TOLERANCE_NANOS} ns after the stream's latest access completed, is
 * served as if it had arrived at that completion (never earlier than the device's next start). Whether an access
 * continues its stream is {@link StreamContinuity}'s rule, the one the OSD's QoS stage charges by (a continuation
 * is charged no positioning there): at the previous end, or permuted within the stream's reorder window. The
 * stream is the file, its offsets the file's local objects end to end, which is how {@link DeviceLayout} lays it
 * on the device. This removes only the host's own gap; it never makes the device faster than its model (the model
 * still charges the head's movement for a permuted access; {@code PatternDriver}, which has no gap, derives the
 * same figures), and a host slower than the device still gets only what it sends.
 *
 * <p><b>Speed changes.</b> {@link #setSpeedFraction} makes the device run at a fraction of its model's speed
 * from the next access on (the model {@link DeviceModel#slowedBy slowed by} 1/fraction; the device state
 * carries over, accesses already begun keep their completion): a degraded disk or a background rebuild, for
 * benchmarks that take capacity away mid-run. The profile the OSD registered stays the full model's, as a
 * real disk's does when it degrades.
 */
public final class EmulatedDevice<S extends DeviceState> implements StorageDevice {
    /** Blocks until the clock reaches a time. */
    public interface Waiter {
        void awaitNanos(long monotonicNanos);
    }

    /** The longest host gap forgiven to a sequential continuation (see the class comment). */
    public static final long TURNAROUND_TOLERANCE_NANOS = 20_000_000;
    /** Files whose streams are remembered (least recently used forgotten): as many as the QoS stage tracks. */
    static final int STREAMS_TRACKED_MAX = 4096;

    private final DeviceModel<S> fullSpeedModel;
    private DeviceModel<S> model; // guarded by this; fullSpeedModel slowed by 1 / speedFraction
    private double speedFraction = 1; // guarded by this; in (0, 1]
    private final Clock clock;
    private final Waiter waiter;
    private S state; // guarded by this
    private long accesses; // guarded by this
    private long busyUntilNanos; // guarded by this
    /** Each file's stream, marked with the latest completion time of its accesses; guarded by this. */
    private final StreamContinuity continuity = new StreamContinuity(STREAMS_TRACKED_MAX);

    public EmulatedDevice(DeviceModel<S> model, Clock clock, Waiter waiter) {
        this.fullSpeedModel = model;
        this.model = model;
        this.clock = clock;
        this.waiter = waiter;
        this.state = model.initialState();
    }

    /** Waits on the real clock: parks until the monotonic time is reached (an interrupt ends the wait early). */
    public static Waiter parking(Clock clock) {
        return monotonicNanos -> {
            for (long remaining = monotonicNanos - clock.monotonicNanos(); remaining > 0;
                    remaining = monotonicNanos - clock.monotonicNanos()) {
                LockSupport.parkNanos(remaining);
                if (Thread.currentThread().isInterrupted()) {
                    return; // shutting down: the caller's I/O is done, only the emulated delay is cut short
                }
            }
        };
    }

    @Override
    public long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
            long lengthBytes, IoKind kind, boolean synced) {
        IoRequest request = DeviceLayout.request(kind, fileId, localObjectIndex, objectSizeBytes,
                offsetInObjectBytes, lengthBytes, fullSpeedModel.capacityBytes()).withSynced(synced);
        long streamOffsetBytes = localObjectIndex * objectSizeBytes + offsetInObjectBytes;
        synchronized (this) {
            long arrivalNanos = clock.monotonicNanos();
            OptionalLong previousCompletionNanos = continuity.markOf(fileId);
            boolean continues = continuity.arrive(fileId, streamOffsetBytes, lengthBytes).continuesStream();
            if (continues && previousCompletionNanos.isPresent() && arrivalNanos > previousCompletionNanos.getAsLong()
                    && arrivalNanos - previousCompletionNanos.getAsLong() <= TURNAROUND_TOLERANCE_NANOS) {
                arrivalNanos = previousCompletionNanos.getAsLong();
            }
            long startNanos = Math.max(arrivalNanos, state.nextStartNanos());
            ServiceResult<S> result = model.serve(request, state, startNanos);
            state = result.nextState();
            continuity.mark(fileId, Math.max(result.completionNanos(),
                    previousCompletionNanos.orElse(result.completionNanos())));
            accesses++;
            busyUntilNanos = Math.max(busyUntilNanos, result.completionNanos());
            return result.completionNanos();
        }
    }

    /** The file's region on the device ({@link DeviceLayout}) is flushed: that is where its objects lie. */
    @Override
    public long flush(String fileId) {
        long fromBytes = DeviceLayout.regionStartBytes(fileId, fullSpeedModel.capacityBytes());
        long toBytes = fromBytes + DeviceLayout.regionBytes(fullSpeedModel.capacityBytes());
        synchronized (this) {
            long startNanos = Math.max(clock.monotonicNanos(), state.nextStartNanos());
            ServiceResult<S> result = model.flush(fromBytes, toBytes, state, startNanos);
            state = result.nextState();
            busyUntilNanos = Math.max(busyUntilNanos, result.completionNanos());
            return result.completionNanos();
        }
    }

    @Override
    public void end(long completionNanos) {
        waiter.awaitNanos(completionNanos);
    }

    /** The model's write-back level now (a query of the model on the current state; nothing is changed). */
    @Override
    public synchronized java.util.Optional<org.xtreemfs.qos.device.WriteBackLevel> writeBackLevel() {
        return model.writeBackLevel(state, Math.max(clock.monotonicNanos(), 0));
    }

    /** The model at full speed (what the OSD's profile was derived from). */
    public DeviceModel<S> model() {
        return fullSpeedModel;
    }

    /**
     * From the next access on, serves at {@code fraction} of the model's speed (every duration divided by it):
     * 2/3 is a disk that lost a third of its capacity, 1 restores it.
     *
     * @throws IllegalArgumentException naming the value unless 0 &lt; fraction &le; 1
     */
    public synchronized void setSpeedFraction(double fraction) {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("the device's speed fraction must be greater than 0 and at most 1, not "
                    + fraction);
        }
        speedFraction = fraction;
        model = fraction == 1 ? fullSpeedModel : fullSpeedModel.slowedBy(1 / fraction);
    }

    /** The fraction of the model's speed the device runs at (1 unless {@link #setSpeedFraction} lowered it). */
    public synchronized double speedFraction() {
        return speedFraction;
    }

    /** Accesses served so far (status page). */
    public synchronized long accesses() {
        return accesses;
    }

    /** The latest completion time handed out so far. */
    public synchronized long busyUntilNanos() {
        return busyUntilNanos;
    }
}
