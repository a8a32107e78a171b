package org.xtreemfs.osd.ops;

import com.google.protobuf.Parser;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.osd.stages.OsdRequest;
import org.xtreemfs.osd.stages.PreprocessingStage;

/** A file operation: parse on the network thread, turn into a typed stage message, queue for preprocessing. */
abstract class QueuedOp<T> implements RpcHandler {
    private final PreprocessingStage pipeline;
    private final Parser<T> parser;

    QueuedOp(PreprocessingStage pipeline, Parser<T> parser) {
        this.pipeline = pipeline;
        this.parser = parser;
    }

    @Override
    public final void handle(RpcCall call) throws RpcException {
        pipeline.submit(toRequest(call, call.request(parser)));
    }

    abstract OsdRequest toRequest(RpcCall call, T request) throws RpcException;
}
