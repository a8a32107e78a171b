package org.xtreemfs.foundation.stage;

/**
 * What {@link StageHandler#onFailure} receives when a handler ended in an {@link Error} rather than an
 * exception: the error is the cause, the message names it and the stage.
 */
public final class StageHandlerError extends Exception {
    private static final long serialVersionUID = 1L;

    public StageHandlerError(String stageName, Throwable error) {
        super("stage " + stageName + ": " + error, error);
    }
}
