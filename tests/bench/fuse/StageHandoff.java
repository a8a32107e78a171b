import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * CPU per message of foundation's {@code Stage} hand-off, two builds side by side in one JVM (issue 10: the OSD's
 * storage hand-off). Each build's foundation jar is loaded by a class loader of its own, and the rounds alternate
 * between them, so both see the same machine. The figure is the process's CPU time (all threads: submitter, workers,
 * JIT, GC) over the messages handled, which a loaded machine moves far less than a rate.
 *
 * <p>Scenarios, as the OSD's storage stage sees them (16 workers):
 * <ul>
 *   <li>{@code paced}: one message every 500 us, each handled in a few microseconds (mostly idle workers: a small
 *       request's rate on a loaded machine);
 *   <li>{@code qd32}: 32 messages in flight, each waiting 100 us without CPU (a disk read), the submitter sending the
 *       next as one completes (a random read at queue depth 32).
 * </ul>
 *
 * <pre>
 *   java tests/bench/fuse/StageHandoff.java NAME=FOUNDATION_JAR NAME=FOUNDATION_JAR --slf4j SLF4J_API_JAR [--rounds N] [--seconds S]
 * </pre>
 */
public final class StageHandoff {
    private static final int WORKERS = 16;

    public static void main(String[] args) throws Exception {
        List<String> names = new ArrayList<>();
        List<ClassLoader> loaders = new ArrayList<>();
        URL slf4j = null;
        int rounds = 3;
        double seconds = 5;
        List<String[]> sides = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--slf4j" -> slf4j = Path.of(args[++i]).toUri().toURL();
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                default -> sides.add(args[i].split("=", 2));
            }
        }
        if (sides.isEmpty() || slf4j == null) {
            throw new IllegalArgumentException("usage: NAME=FOUNDATION_JAR... --slf4j SLF4J_API_JAR");
        }
        for (String[] side : sides) {
            names.add(side[0]);
            loaders.add(new URLClassLoader(new URL[] {Path.of(side[1]).toUri().toURL(), slf4j},
                    ClassLoader.getPlatformClassLoader()));
        }
        for (String scenario : List.of("paced", "qd32")) {
            for (int loader = 0; loader < loaders.size(); loader++) {
                run(loaders.get(loader), scenario, 1.0); // warm-up, not reported
            }
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < loaders.size(); k++) {
                    int loader = round % 2 == 0 ? k : loaders.size() - 1 - k; // the order reversed every round
                    double[] result = run(loaders.get(loader), scenario, seconds);
                    System.out.printf("%d %-6s %-6s %9.0f messages/s %7.2f us CPU per message%n", round, scenario,
                            names.get(loader), result[0], result[1]);
                }
            }
        }
    }

    /** Returns messages per second and process CPU microseconds per message. */
    private static double[] run(ClassLoader loader, String scenario, double seconds) throws Exception {
        Class<?> stageClass = loader.loadClass("org.xtreemfs.foundation.stage.Stage");
        Class<?> handlerClass = loader.loadClass("org.xtreemfs.foundation.stage.StageHandler");
        Class<?> clockClass = loader.loadClass("org.xtreemfs.foundation.clock.Clock");
        Object clock = loader.loadClass("org.xtreemfs.foundation.clock.SystemClock").getField("INSTANCE").get(null);
        boolean paced = scenario.equals("paced");
        Semaphore inFlight = new Semaphore(32);
        AtomicLong handled = new AtomicLong();
        Object handler = Proxy.newProxyInstance(loader, new Class<?>[] {handlerClass}, (proxy, method, margs) -> {
            if (method.getName().equals("handle")) {
                if (paced) {
                    long until = System.nanoTime() + 2_000;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                } else {
                    LockSupport.parkNanos(100_000);
                    inFlight.release();
                }
                handled.incrementAndGet();
                return null;
            }
            if (method.isDefault()) {
                return null; // onFailure, onDiscarded
            }
            return method.getName().equals("hashCode") ? System.identityHashCode(proxy)
                    : method.getName().equals("equals") ? proxy == margs[0] : "handler";
        });
        Method start = stageClass.getMethod("start", String.class, int.class, int.class, clockClass, handlerClass);
        Object stage = start.invoke(null, "bench", 4096, WORKERS, clock, handler);
        Method submit = stageClass.getMethod("submit", Object.class);
        Method shutdown = stageClass.getMethod("shutdown", java.time.Duration.class);
        Thread.sleep(200); // workers started and parked
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = os.getProcessCpuTime();
        long handledStart = handled.get();
        long wallStart = System.nanoTime();
        long end = wallStart + (long) (seconds * 1e9);
        Object message = "m";
        while (System.nanoTime() < end) {
            if (paced) {
                LockSupport.parkNanos(500_000);
            } else {
                inFlight.acquire();
            }
            submit.invoke(stage, message);
        }
        long cpu = os.getProcessCpuTime() - cpuStart;
        long count = handled.get() - handledStart;
        double wallSeconds = (System.nanoTime() - wallStart) / 1e9;
        shutdown.invoke(stage, java.time.Duration.ofSeconds(10));
        return new double[] {count / wallSeconds, cpu / 1e3 / Math.max(1, count)};
    }
}
