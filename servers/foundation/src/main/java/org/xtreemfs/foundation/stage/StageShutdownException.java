package org.xtreemfs.foundation.stage;

/** A message was submitted to, or left pending in, a stage that is shutting down. */
public final class StageShutdownException extends RuntimeException {

    private final String stageName;

    public StageShutdownException(String stageName, String detail) {
        super("stage " + stageName + " is shut down: " + detail);
        this.stageName = stageName;
    }

    public String stageName() {
        return stageName;
    }
}
