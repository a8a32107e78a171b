package org.xtreemfs.foundation.stubs;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/** What every typed stub shares: the RPC client, the interface id and the default per-call timeout. */
abstract class ServiceStub {
    private final RpcClient rpcClient;
    private final int interfaceId;
    private final long timeoutMs;
    /** Stamped on every call of this stub (rpc.proto RequestHeader.client_id); "" and 0: none. */
    private final String clientId;
    private final long requestNumber;

    ServiceStub(RpcClient rpcClient, int interfaceId, long timeoutMs) {
        this(rpcClient, interfaceId, timeoutMs, "", 0);
    }

    ServiceStub(RpcClient rpcClient, int interfaceId, long timeoutMs, String clientId, long requestNumber) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeoutMs must be positive: " + timeoutMs);
        }
        this.rpcClient = rpcClient;
        this.interfaceId = interfaceId;
        this.timeoutMs = timeoutMs;
        this.clientId = clientId;
        this.requestNumber = requestNumber;
    }

    RpcClient rpcClient() {
        return rpcClient;
    }

    public long timeoutMs() {
        return timeoutMs;
    }

    <T> CompletableFuture<T> call(InetSocketAddress server, UserCredentials credentials, int procedureId,
            MessageLite request, Parser<T> responseParser) {
        return rpcClient.callParsed(server, interfaceId, procedureId, credentials, request, responseParser, timeoutMs,
                clientId, requestNumber);
    }

    CompletableFuture<RpcResponse> callWithData(InetSocketAddress server, UserCredentials credentials,
            int procedureId, MessageLite request, ByteBuf data) {
        return rpcClient.call(server, interfaceId, procedureId, credentials, request, data, timeoutMs, clientId,
                requestNumber);
    }
}
