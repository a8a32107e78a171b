package org.xtreemfs.osd.stages;

import java.util.ArrayDeque;

/** Releases requests in arrival order, whatever their volume and cost. */
public final class FifoQueueingPolicy<R> implements QueueingPolicy<R> {
    private final ArrayDeque<R> queue = new ArrayDeque<>();

    @Override
    public void enqueue(R request, String volumeId, long costBytes) {
        queue.addLast(request);
    }

    @Override
    public R dequeue() {
        return queue.pollFirst();
    }

    @Override
    public int size() {
        return queue.size();
    }
}
