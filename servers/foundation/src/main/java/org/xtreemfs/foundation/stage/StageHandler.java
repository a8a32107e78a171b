package org.xtreemfs.foundation.stage;

/**
 * Processes the messages of one stage. The message type {@code M} is normally a sealed interface
 * of records owned by the stage's user, so handlers switch over types, not opcodes.
 *
 * @param <M> the stage's message type
 */
@FunctionalInterface
public interface StageHandler<M> {

    /** Handles one message on a worker thread. Handlers reply to their callers themselves. */
    void handle(M message) throws Exception;

    /**
     * Called on the worker thread when {@link #handle} throws; the default ignores the error after
     * the stage has logged and counted it. Override to send an INTERNAL error reply.
     */
    default void onFailure(M message, Exception error) {
    }

    /**
     * Called for each accepted message that will never be handled because the stage shut down
     * before reaching it; override to fail the waiting caller.
     */
    default void onDiscarded(M message, StageShutdownException reason) {
    }
}
