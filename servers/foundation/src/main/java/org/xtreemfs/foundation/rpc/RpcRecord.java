package org.xtreemfs.foundation.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import org.xtreemfs.interfaces.rpc.RpcHeader;

/**
 * One decoded record. {@code message} and {@code data} are slices of the received buffer; whoever holds the
 * record releases it exactly once.
 */
public record RpcRecord(RpcHeader header, ByteBuf message, ByteBuf data) {
    public void release() {
        releaseQuietly(message);
        releaseQuietly(data);
    }

    static void releaseQuietly(ReferenceCounted buffer) {
        if (buffer != null && buffer.refCnt() > 0) {
            buffer.release();
        }
    }
}
