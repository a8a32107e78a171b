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
     * Called on the worker thread when {@link #handle} throws, after the stage has logged and counted it;
     * also when it ends in an {@link Error} (then {@code error} is a {@link StageHandlerError} whose cause is
     * the Error). The default ignores it. Override to answer the waiting caller and release what the message
     * held; it must be safe when the handler had already answered.
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
