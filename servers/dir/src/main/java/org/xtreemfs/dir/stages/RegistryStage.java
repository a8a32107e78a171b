package org.xtreemfs.dir.stages;

import com.google.protobuf.MessageLite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.dir.registry.RegistryException;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stage.Stage;
import org.xtreemfs.foundation.stage.StageHandler;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.foundation.stage.StageShutdownException;

/**
 * The one stage between the network and the registries: registry calls write to RocksDB, which must not
 * happen on a network thread. One worker runs every call in arrival order, so versions are assigned in
 * the order the DIR received the changes. A full queue answers OVERLOADED at once.
 */
public final class RegistryStage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryStage.class);

    /** The registry work of one call; returns the response message. */
    @FunctionalInterface
    public interface RegistryAction {
        MessageLite apply() throws RegistryException;
    }

    private record Work(RpcCall call, RegistryAction action) {}

    private final Stage<Work> stage;

    private RegistryStage(Stage<Work> stage) {
        this.stage = stage;
    }

    public static RegistryStage start(int queueCapacity, Clock clock) {
        return new RegistryStage(Stage.start("dir-registry", queueCapacity, 1, clock, new Handler()));
    }

    /**
     * Queues the action; the call is answered when it ran.
     *
     * @throws RpcException OVERLOADED when the queue is full, INTERNAL when the DIR is shutting down
     */
    public void submit(RpcCall call, RegistryAction action) throws RpcException {
        boolean accepted;
        try {
            accepted = stage.offer(new Work(call, action));
        } catch (StageShutdownException e) {
            throw RpcException.internal("DIR is shutting down: " + e.getMessage());
        }
        if (!accepted) {
            throw RpcException.overloaded("DIR registry queue is full at " + stage.queueCapacity()
                    + " calls (dir.registry.queueCapacity); retry later");
        }
    }

    public StageMetrics metrics() {
        return stage.metrics();
    }

    /** Lets queued calls finish, then stops the worker. */
    @Override
    public void close() {
        stage.close();
    }

    /** Maps a refused registry request to the error type a caller acts on. */
    public static RpcException toRpcException(RegistryException error) {
        return switch (error.reason()) {
            case INVALID -> RpcException.invalidArguments(error.getMessage());
            case NOT_FOUND -> RpcException.errno(Errno.ENOENT, error.getMessage());
            case CONFLICT -> RpcException.errno(Errno.EEXIST, error.getMessage());
        };
    }

    private static final class Handler implements StageHandler<Work> {
        @Override
        public void handle(Work work) {
            MessageLite response;
            try {
                response = work.action().apply();
            } catch (RegistryException e) {
                work.call().fail(toRpcException(e));
                return;
            }
            work.call().respond(response);
        }

        @Override
        public void onFailure(Work work, Exception error) {
            LOG.error("DIR registry failed on procedure {}", work.call().procedureId(), error);
            work.call().fail(RpcException.internal("DIR registry failed: " + error));
        }

        @Override
        public void onDiscarded(Work work, StageShutdownException reason) {
            work.call().fail(RpcException.internal("DIR is shutting down: " + reason.getMessage()));
        }
    }
}
