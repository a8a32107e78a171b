package org.xtreemfs.foundation.stage;

/**
 * A stage's queue is full. Callers map this to the OVERLOADED error so clients back off; the stage
 * never grows its queue instead.
 */
public final class OverloadedException extends RuntimeException {

    private final String stageName;
    private final int queueCapacity;

    public OverloadedException(String stageName, int queueCapacity) {
        super("stage " + stageName + " is overloaded: its queue is full at " + queueCapacity
                + " pending messages");
        this.stageName = stageName;
        this.queueCapacity = queueCapacity;
    }

    public String stageName() {
        return stageName;
    }

    public int queueCapacity() {
        return queueCapacity;
    }
}
