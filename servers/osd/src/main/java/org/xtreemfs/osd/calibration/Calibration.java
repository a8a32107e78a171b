package org.xtreemfs.osd.calibration;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.osd.storage.ObjectStore;
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

    /** Opens the store a phase runs on: with the device being measured, or (for filling) without an emulation. */
    public interface Stores {
        ObjectStore open(boolean measured) throws IOException;
    }

    private final Stores stores;
    private final CalibrationPattern pattern;
    private final Clock clock;
    private final PrintStream progress;

    public Calibration(Stores stores, CalibrationPattern pattern, Clock clock, PrintStream progress) {
        this.stores = stores;
        this.pattern = pattern;
        this.clock = clock;
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
                    store = stores.open(phase.measured());
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

    private double runPhase(ObjectStore target, CalibrationPattern.Phase phase)
            throws IOException, InterruptedException {
        long phaseStartNanos = clock.monotonicNanos();
        long windowStartNanos = phaseStartNanos + pattern.warmupNanos();
        long windowEndNanos = windowStartNanos + pattern.windowNanos();
        long[] counted = new long[phase.clients()];
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int client = 0; client < phase.clients(); client++) {
            int id = client;
            Thread thread = new Thread(() -> {
                try {
                    counted[id] = runClient(target, phase, id, windowStartNanos, windowEndNanos);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "calibration-" + phase.name() + "-" + client);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            Exception e = failure.get();
            throw e instanceof IOException io ? io : new IOException(phase.name() + " failed: " + e, e);
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
            CalibrationPattern.Access access = phase.access(client, index);
            String fileId = CalibrationPattern.fileId(access.fileIndex());
            ByteBuffer window = buffer.duplicate().position(0).limit(access.lengthBytes());
            if (access.kind() == IoKind.WRITE) {
                target.write(fileId, layout, access.objectNumber(), access.offsetInObjectBytes(), window, 0, false);
            } else {
                int read = target.read(fileId, layout, access.objectNumber(), access.offsetInObjectBytes(),
                        access.lengthBytes(), window);
                if (read != access.lengthBytes()) {
                    throw new IOException("calibration file " + fileId + " returned " + read + " of "
                            + access.lengthBytes() + " bytes at " + access.offsetBytes() + "; was it filled?");
                }
            }
            long completedNanos = clock.monotonicNanos();
            if (completedNanos >= windowStartNanos && completedNanos < windowEndNanos) {
                counted++;
            }
        }
        return counted;
    }
}
