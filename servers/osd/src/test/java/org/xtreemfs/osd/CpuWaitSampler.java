package org.xtreemfs.osd;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How long this JVM's threads waited for a CPU (runnable, not running), from Linux's per-thread scheduler statistics
 * ({@code /proc/self/task/TID/schedstat}, second field: run delay in nanoseconds), sampled every
 * {@code periodMs} on a daemon thread. The same measure the QoS benchmark's report uses per process
 * ({@code tests/bench/qos_fuse/run_qos_bench.py}) to name a window "starved": a test whose servers run in this JVM
 * tells a machine too busy to run them apart from a failure of what it tests. Threads that end between two samples
 * lose their last delay (undercounting); threads that start count from their start.
 */
final class CpuWaitSampler implements AutoCloseable {
    private static final Path TASKS = Path.of("/proc/self/task");

    /** One sample: the monotonic time and the run delay summed over the threads alive since the previous one. */
    private record Sample(long nanos, long cumulativeWaitNanos) {}

    private final List<Sample> samples = new ArrayList<>();
    private final Map<String, Long> lastWaitByThread = new HashMap<>();
    private long cumulativeWaitNanos;
    private final Thread sampler;
    private volatile boolean running = true;

    CpuWaitSampler(long periodMs) {
        sample();
        sampler = new Thread(() -> {
            while (running) {
                try {
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                }
                sample();
            }
        }, "cpu-wait-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private void sample() {
        long now = System.nanoTime();
        Map<String, Long> current = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    String[] fields = Files.readString(task.resolve("schedstat")).trim().split("\\s+");
                    current.put(task.getFileName().toString(), Long.parseLong(fields[1]));
                } catch (IOException | RuntimeException e) {
                    // The thread ended while we looked: its delay since the last sample is lost.
                }
            }
        } catch (IOException e) {
            return;
        }
        synchronized (this) {
            for (Map.Entry<String, Long> thread : current.entrySet()) {
                cumulativeWaitNanos += thread.getValue() - lastWaitByThread.getOrDefault(thread.getKey(), 0L);
            }
            lastWaitByThread.clear();
            lastWaitByThread.putAll(current);
            samples.add(new Sample(now, cumulativeWaitNanos));
        }
    }

    /**
     * Nanoseconds this JVM's threads (summed) waited for a CPU between {@code fromNanos} and {@code toNanos}
     * ({@code System.nanoTime}), linearly interpolated between samples; -1 when the samples do not cover it (or
     * the kernel reports no per-thread statistics).
     */
    synchronized long waitNanos(long fromNanos, long toNanos) {
        double from = cumulativeAt(fromNanos);
        double to = cumulativeAt(toNanos);
        return Double.isNaN(from) || Double.isNaN(to) ? -1 : Math.round(to - from);
    }

    private double cumulativeAt(long nanos) {
        for (int index = 1; index < samples.size(); index++) {
            Sample before = samples.get(index - 1);
            Sample after = samples.get(index);
            if (before.nanos() <= nanos && nanos <= after.nanos()) {
                double fraction = after.nanos() == before.nanos() ? 1
                        : (double) (nanos - before.nanos()) / (after.nanos() - before.nanos());
                return before.cumulativeWaitNanos() + fraction * (after.cumulativeWaitNanos()
                        - before.cumulativeWaitNanos());
            }
        }
        return Double.NaN;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        sampler.interrupt();
        sampler.join();
    }
}
