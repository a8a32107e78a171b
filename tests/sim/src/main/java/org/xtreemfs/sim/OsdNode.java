package org.xtreemfs.sim;

import java.util.ArrayDeque;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.device.LogStructuredLayout;
import org.xtreemfs.qos.routing.ReadStealing;
import org.xtreemfs.qos.wfq.Decision;
import org.xtreemfs.qos.wfq.EnqueueResult;

/**
 * A simulated OSD: QoS stage (queue) in front of one device that takes requests in exactly the order the queue
 * decides. Optionally a write-back buffer (buffered replicas) or a log-structured write layout (FAST tail).
 */
final class OsdNode {
    private static final int DISPATCHES_PER_WAKEUP_MAX = 4096;
    private static final int BLOCKED_WRITES_MAX = 1_000_000;
    private static final String WRITEBACK_FLOW = "writeback";

    private record BlockedWrite(IoRequest request, Runnable accepted) {}

    /** Finds a queued read at a peer for this node to serve while it would otherwise be idle, or null. */
    interface ReadThief {
        IoOp stealFor(OsdNode idle);
    }

    private final String name;
    private final Simulation simulation;
    private final Device<?> device;
    private final OsdQueue queue;
    private final WriteBackBuffer writeBack;
    private final ArrayDeque<BlockedWrite> blockedWrites = new ArrayDeque<>();
    private LogStructuredLayout log;
    private ReadThief readThief;
    private int inFlight;
    private boolean flushInFlight;
    private long wakeNanos = Long.MAX_VALUE;
    /** Whether the queue is told how full the device's write-back is before each decision, as the OSD's stage does. */
    private boolean observeWriteBack = true;
    /** Device busy time and operation count per kind of work, indexed by {@link Work#ordinal()}. */
    private final long[] busyNanosByWork = new long[Work.values().length];
    private final long[] operationsByWork = new long[Work.values().length];

    /** Kinds of device work a node reports separately. */
    enum Work { READ, WRITE, FLUSH, STOLEN_READ }

    /** The operation picked for the device and what kind of work it is. */
    private record Next(IoOp op, Work work) {
        static Next queued(IoOp op) {
            return new Next(op, op.request().kind() == IoKind.READ ? Work.READ : Work.WRITE);
        }
    }

    /**
     * @param writeBack null for a replica that writes through
     * @param log null for in-place writes
     */
    OsdNode(String name, Simulation simulation, Device<?> device, OsdQueue queue, WriteBackBuffer writeBack,
            LogStructuredLayout log) {
        this.name = name;
        this.simulation = simulation;
        this.device = device;
        this.queue = queue;
        this.writeBack = writeBack;
        this.log = log;
    }

    String name() {
        return name;
    }

    /** Whether the queue sees the device's write-back level (the OSD's QoS stage does; off shows the pacing without). */
    void observeWriteBack(boolean observe) {
        this.observeWriteBack = observe;
    }

    void stealReadsWith(ReadThief thief) {
        this.readThief = thief;
    }

    int queuedReads() {
        return queue.queuedReads();
    }

    /** Hands the oldest waiting read to a stealing peer (which then serves it on its own device). */
    IoOp giveUpOldestRead() {
        return queue.removeOldestRead().orElse(null);
    }

    /** Re-evaluates the node after something changed elsewhere (e.g. a peer got reads it could steal). */
    void poke() {
        tryDispatch();
    }

    /** Queues a durable request; a log-structured node turns a write into the next append. */
    EnqueueResult submit(IoOp op) {
        IoOp placed = op;
        if (log != null && op.request().kind() == IoKind.WRITE) {
            LogStructuredLayout.Append append = log.append(op.request().lengthBytes());
            log = append.next();
            placed = new IoOp(op.tenantId(), append.deviceRequest().withSynced(op.request().synced()), op.cost(),
                    op.onCompletion(), false);
        }
        EnqueueResult result = queue.offer(placed, simulation.nowNanos());
        tryDispatch();
        return result;
    }

    /** Buffered write: {@code accepted} runs once the buffer has taken it (at once, unless it is full). */
    void bufferWrite(IoRequest write, Runnable accepted) {
        if (writeBack == null) {
            throw new IllegalStateException(name + " has no write-back buffer");
        }
        if (blockedWrites.isEmpty() && writeBack.tryAbsorb(write)) {
            simulation.schedule(simulation.nowNanos(), accepted);
            tryDispatch();
            return;
        }
        if (blockedWrites.size() >= BLOCKED_WRITES_MAX) {
            throw new IllegalStateException(name + ": more than " + BLOCKED_WRITES_MAX + " writers blocked");
        }
        blockedWrites.addLast(new BlockedWrite(write, accepted));
    }

    /** Requests queued or on the device, as the OSD would report its load to routing clients. */
    int outstanding() {
        return queue.size() + inFlight;
    }

    long pendingWriteBackBytes() {
        return writeBack == null ? 0 : writeBack.pendingBytes();
    }

    long flushedBytes() {
        return writeBack == null ? 0 : writeBack.flushedBytes();
    }

    long busyNanos() {
        return device.busyNanos();
    }

    long busyNanos(Work work) {
        return busyNanosByWork[work.ordinal()];
    }

    long operations(Work work) {
        return operationsByWork[work.ordinal()];
    }

    void slowDown(double factor) {
        device.slowDown(factor);
    }

    /** The device becomes {@code factor} times slower than nominal (1: nominal again). */
    void slowDownTo(double factor) {
        device.slowDownTo(factor);
    }

    private void tryDispatch() {
        long nowNanos = simulation.nowNanos();
        for (int dispatch = 0; dispatch < DISPATCHES_PER_WAKEUP_MAX; dispatch++) {
            if (device.nextStartNanos() > nowNanos) {
                wakeAt(device.nextStartNanos());
                return;
            }
            Next next = nextOp(nowNanos);
            if (next == null) {
                return;
            }
            IoOp op = next.op();
            long busyBeforeNanos = device.busyNanos();
            long completionNanos = device.serve(op.request(), nowNanos);
            busyNanosByWork[next.work().ordinal()] += device.busyNanos() - busyBeforeNanos;
            operationsByWork[next.work().ordinal()]++;
            inFlight++;
            simulation.schedule(completionNanos, () -> {
                inFlight--;
                op.onCompletion().completed(completionNanos);
                tryDispatch();
            });
        }
        throw new IllegalStateException(name + ": more than " + DISPATCHES_PER_WAKEUP_MAX + " dispatches at once");
    }

    /**
     * Background flushing first above the threshold, queued work next, then idle flushing of its own write-back, and
     * only when nothing of its own is left ({@link ReadStealing#thiefIdle}) a read stolen from a busy peer.
     */
    private Next nextOp(long nowNanos) {
        boolean canFlush = writeBack != null && !flushInFlight && writeBack.hasDirty();
        if (canFlush && writeBack.backgroundFlushDue(queue.size() > 0)) {
            return new Next(flushOp(), Work.FLUSH);
        }
        if (observeWriteBack) {
            device.writeBackLevel(nowNanos).ifPresent(
                    level -> queue.observeWriteBack(level.dirtyBytes(), level.backgroundBytes()));
        }
        Decision<IoOp> decision = queue.poll(nowNanos);
        if (decision instanceof Decision.Dispatch<IoOp> dispatch) {
            if (writeBack != null) {
                writeBack.requestServed();
            }
            return Next.queued(dispatch.request());
        }
        if (decision instanceof Decision.WaitUntil<IoOp> wait) {
            wakeAt(wait.eligibleNanos());
        }
        if (canFlush) {
            return new Next(flushOp(), Work.FLUSH);
        }
        boolean idle = ReadStealing.thiefIdle(queue.size(), writeBack == null ? 0 : writeBack.dirtyBytes());
        IoOp stolen = readThief == null || !idle ? null : readThief.stealFor(this);
        if (stolen != null) {
            return new Next(stolen, Work.STOLEN_READ);
        }
        return null;
    }

    private IoOp flushOp() {
        IoRequest flush = writeBack.nextFlush();
        flushInFlight = true;
        return new IoOp(WRITEBACK_FLOW, flush, flush.lengthBytes(), completionNanos -> {
            flushInFlight = false;
            writeBack.flushed(flush.lengthBytes());
            admitBlockedWrites();
        });
    }

    private void admitBlockedWrites() {
        while (!blockedWrites.isEmpty() && writeBack.tryAbsorb(blockedWrites.peekFirst().request())) {
            simulation.schedule(simulation.nowNanos(), blockedWrites.pollFirst().accepted());
        }
    }

    private void wakeAt(long timeNanos) {
        long nowNanos = simulation.nowNanos();
        if (wakeNanos > nowNanos && wakeNanos <= timeNanos) {
            return;
        }
        wakeNanos = timeNanos;
        simulation.schedule(timeNanos, () -> {
            if (wakeNanos == timeNanos) {
                wakeNanos = Long.MAX_VALUE;
            }
            tryDispatch();
        });
    }
}
