package org.xtreemfs.osd.calibration;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.osd.storage.ObjectStore;
import org.xtreemfs.osd.storage.StorageDevice;
import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.device.CalibrationPattern;
import org.xtreemfs.qos.device.CalibrationResult;
import org.xtreemfs.qos.device.IoKind;

/**
 * Runs the {@link CalibrationPattern} through an {@link ObjectStore} with real threads: one thread per client
 * of a phase, each sending its next access when the previous one returned, as {@code PatternDriver} does in
 * simulated time. What the store does (real disk, O_DIRECT, or an emulated device) is what is measured.
 *
 * <p>A measured phase counts the accesses that complete within its window (after the warm-up), measured on
 * the clock's monotonic time; clients stop sending when the window has closed and the phase ends when all have
 * returned. Calibration files are written once (the fill phase) and never grow afterwards, so the store's
 * metadata is not written during measured phases and several clients may use one file at once (reads and
 * non-growing writes of distinct ranges do not race).
 */
public final class Calibration {
    /** Buffers are aligned for O_DIRECT on any common file system block size. */
    static final int BUFFER_ALIGNMENT_BYTES = 4096;

    /**
     * Opens the store a phase runs on: with the device being measured, or (for filling) without an emulation. The
     * store's device must be wrapped by {@code arrivalOrder}, which lets the calibration order its clients' first
     * accesses.
     */
    public interface Stores {
        ObjectStore open(boolean measured, UnaryOperator<StorageDevice> arrivalOrder) throws IOException;
    }

    /** The client whose first access may reach the device next; see {@link #ordered}. */
    private final AtomicInteger nextFirstAccess = new AtomicInteger();
    private final ThreadLocal<Boolean> beforeFirstAccess = ThreadLocal.withInitial(() -> false);

    private final Stores stores;
    private final CalibrationPattern pattern;
    private final Clock clock;
    private final ThreadFactory threads;
    private final PrintStream progress;

    /**
     * @param clock the time the phases' windows are measured on (the stores' device must wait on the same time)
     * @param threads makes each phase's client threads (a virtual clock registers them, see {@link
     *     CalibrationTiming})
     */
    public Calibration(Stores stores, CalibrationPattern pattern, Clock clock, ThreadFactory threads,
            PrintStream progress) {
        this.stores = stores;
        this.pattern = pattern;
        this.clock = clock;
        this.threads = threads;
        this.progress = progress;
    }

    /** What a run measured, and how long it took in all (monotonic nanoseconds). */
    public record Outcome(CalibrationResult result, long durationNanos) {}

    /**
     * Runs every phase in order; progress lines go to the progress stream. The fill phase writes through
     * {@code stores.open(false)} (for an emulated device a store of the same folder without the emulation:
     * filling is preparation, not measurement), the measured phases through {@code stores.open(true)}; each store
     * is closed when its phases are done.
     */
    public Outcome run() throws IOException, InterruptedException {
        long startNanos = clock.monotonicNanos();
        Map<String, Double> rates = new LinkedHashMap<>();
        List<CalibrationPattern.Phase> phases = pattern.phases();
        int number = 0;
        ObjectStore store = null;
        boolean storeMeasures = false;
        try {
            for (CalibrationPattern.Phase phase : phases) {
                if (store == null || storeMeasures != phase.measured()) {
                    if (store != null) {
                        store.close();
                    }
                    store = stores.open(phase.measured(), this::ordered);
                    storeMeasures = phase.measured();
                }
                number++;
                long phaseStartNanos = clock.monotonicNanos();
                progress.printf("[%2d/%d] %-22s %2d client%s ... ", number, phases.size(), phase.name(), phase.clients(),
                        phase.clients() == 1 ? " " : "s");
                progress.flush();
                double requestsPerSecond = runPhase(store, phase);
                double seconds = (clock.monotonicNanos() - phaseStartNanos) / 1e9;
                if (phase.measured()) {
                    rates.put(phase.name(), requestsPerSecond);
                    progress.printf("%10.1f requests/s = %8.2f MiB/s (%.1f s)%n", requestsPerSecond,
                            requestsPerSecond * phase.requestBytes() / (1 << 20), seconds);
                } else {
                    progress.printf("%d MiB written (%.1f s)%n", phase.requestCount() * phase.requestBytes() >> 20, seconds);
                }
            }
        } finally {
            if (store != null) {
                store.close();
            }
        }
        return new Outcome(CalibrationResult.fromPhaseRates(pattern, rates), clock.monotonicNanos() - startNanos);
    }

    /**
     * The device with the phase's first accesses in client order. With one request outstanding per stream, a
     * device that serves in arrival order keeps the order of the streams' first arrivals as its round-robin
     * order for the whole phase; on a disk that order sets the seek distances (4 streams in another order
     * measured 24 % faster). {@code PatternDriver} serves first requests in client order, so the calibration
     * does too: client i sends its first access only after client i-1's has reached the device.
     */
    StorageDevice ordered(StorageDevice device) {
        return new StorageDevice() {
            @Override
            public long begin(String fileId, long localObjectIndex, int objectSizeBytes, long offsetInObjectBytes,
                    long lengthBytes, org.xtreemfs.qos.device.IoKind kind, boolean synced) {
                long completionNanos = device.begin(fileId, localObjectIndex, objectSizeBytes, offsetInObjectBytes,
                        lengthBytes, kind, synced);
                firstAccessBegun();
                return completionNanos;
            }

            @Override
            public long flush(String fileId) {
                return device.flush(fileId);
            }

            @Override
            public void end(long completionNanos) {
                device.end(completionNanos);
            }
        };
    }

    private void firstAccessBegun() {
        if (beforeFirstAccess.get()) {
            beforeFirstAccess.set(false);
            synchronized (nextFirstAccess) {
                nextFirstAccess.incrementAndGet();
                nextFirstAccess.notifyAll();
            }
        }
    }

    /** Waits for the client's turn, but never past the phase's window (a client that never started must not block). */
    private void awaitFirstAccessTurn(int client, long windowEndNanos) throws InterruptedException {
        synchronized (nextFirstAccess) {
            while (nextFirstAccess.get() < client && clock.monotonicNanos() < windowEndNanos) {
                nextFirstAccess.wait(10);
            }
        }
        beforeFirstAccess.set(true);
    }

    private double runPhase(ObjectStore target, CalibrationPattern.Phase phase)
            throws IOException, InterruptedException {
        nextFirstAccess.set(0);
        long phaseStartNanos = clock.monotonicNanos();
        long windowStartNanos = phaseStartNanos + pattern.warmupNanos();
        long windowEndNanos = windowStartNanos + pattern.windowNanos();
        long[] counted = new long[phase.clients()];
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> clients = new ArrayList<>();
        // Every client exists before any starts: a virtual clock (CalibrationTiming) must not move on while the
        // first client waits for the device and the others are not made yet.
        for (int client = 0; client < phase.clients(); client++) {
            int id = client;
            Thread thread = threads.newThread(() -> {
                try {
                    counted[id] = runClient(target, phase, id, windowStartNanos, windowEndNanos);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            });
            thread.setName("calibration-" + phase.name() + "-" + client);
            clients.add(thread);
        }
        for (Thread thread : clients) {
            thread.start();
        }
        for (Thread thread : clients) {
            thread.join();
        }
        if (failure.get() != null) {
            Exception e = failure.get();
            throw e instanceof IOException io ? io : new IOException(phase.name() + " failed: " + e, e);
        }
        if (phase.measured() && phase.kind() == IoKind.WRITE) {
            // CalibrationPattern: a write phase ends once its data is durable, so the next starts clean.
            for (int file = 0; file < CalibrationPattern.FILE_COUNT; file++) {
                target.fsync(CalibrationPattern.fileId(file));
            }
        }
        long total = 0;
        for (long count : counted) {
            total += count;
        }
        return total * 1e9 / pattern.windowNanos();
    }

    /** One client's loop; returns how many of its accesses completed inside the window. */
    private long runClient(ObjectStore target, CalibrationPattern.Phase phase, int client, long windowStartNanos,
            long windowEndNanos) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(CalibrationPattern.OBJECT_SIZE_BYTES + BUFFER_ALIGNMENT_BYTES)
                .alignedSlice(BUFFER_ALIGNMENT_BYTES);
        for (int index = 0; index < buffer.capacity(); index++) {
            buffer.put(index, (byte) (index * 31 + client)); // not zeros: no file system may skip or compress it
        }
        StripeLayout layout = StripeLayout.single(CalibrationPattern.OBJECT_SIZE_BYTES);
        long limit = phase.measured() ? Long.MAX_VALUE : phase.requestCount();
        long counted = 0;
        for (long index = 0; index < limit; index++) {
            if (phase.measured() && clock.monotonicNanos() >= windowEndNanos) {
                break;
            }
            if (index == 0) {
                try {
                    awaitFirstAccessTurn(client, phase.measured() ? windowEndNanos : Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("calibration interrupted");
                }
            }
            CalibrationPattern.Access access = phase.access(client, index);
            String fileId = CalibrationPattern.fileId(access.fileIndex());
            ByteBuffer window = buffer.duplicate().position(0).limit(access.lengthBytes());
            if (access.kind() == IoKind.WRITE) {
                target.write(fileId, layout, access.objectNumber(), access.offsetInObjectBytes(), window, 0,
                        access.synced());
            } else {
                int read = target.read(fileId, layout, access.objectNumber(), access.offsetInObjectBytes(),
                        access.lengthBytes(), window);
                if (read != access.lengthBytes()) {
                    throw new IOException("calibration file " + fileId + " returned " + read + " of "
                            + access.lengthBytes() + " bytes at " + access.offsetBytes() + "; was it filled?");
                }
            }
            firstAccessBegun(); // no-op unless the access never reached the device
            long completedNanos = clock.monotonicNanos();
            if (completedNanos >= windowStartNanos && completedNanos < windowEndNanos) {
                counted++;
            }
        }
        return counted;
    }
}
