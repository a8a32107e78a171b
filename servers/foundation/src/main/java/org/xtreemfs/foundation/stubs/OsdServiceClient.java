package org.xtreemfs.foundation.stubs;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.interfaces.common.OsdWriteResponse;
import org.xtreemfs.interfaces.osd.CopyObjectRequest;
import org.xtreemfs.interfaces.osd.CopyObjectResponse;
import org.xtreemfs.interfaces.osd.DeleteFilesRequest;
import org.xtreemfs.interfaces.osd.FileRequest;
import org.xtreemfs.interfaces.osd.FillReplicaRequest;
import org.xtreemfs.interfaces.osd.FillReplicaResponse;
import org.xtreemfs.interfaces.osd.GetFileSizeResponse;
import org.xtreemfs.interfaces.osd.OsdInterface;
import org.xtreemfs.interfaces.osd.OsdProcedure;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.TruncateRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Typed stub of the OSD interface (osd.proto). Object data travels in the record's data segment: a read's
 * bytes are in the returned {@link RpcResponse} (parse its message with ReadResponse.parser(), close it),
 * a write's bytes are passed as a buffer whose ownership goes to the transport.
 */
public final class OsdServiceClient extends ServiceStub {
    /** Files one OSD_DELETE_FILES may name (osd.proto): the MRC sends at most this many, the OSD refuses more. */
    public static final int DELETE_FILES_PER_REQUEST_MAX = 1_024;

    public OsdServiceClient(RpcClient rpcClient, long timeoutMs) {
        super(rpcClient, OsdInterface.OSD_INTERFACE_ID_VALUE, timeoutMs);
    }

    public CompletableFuture<RpcResponse> read(InetSocketAddress osd, UserCredentials credentials, ReadRequest request) {
        return callWithData(osd, credentials, OsdProcedure.OSD_READ_VALUE, request, null);
    }

    public CompletableFuture<OsdWriteResponse> write(InetSocketAddress osd, UserCredentials credentials,
            WriteRequest request, ByteBuf data) {
        return callWithData(osd, credentials, OsdProcedure.OSD_WRITE_VALUE, request, data)
                .thenApply(response -> {
                    try (response) {
                        return response.message(OsdWriteResponse.parser());
                    } catch (org.xtreemfs.foundation.rpc.RpcException e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                });
    }

    public CompletableFuture<OsdWriteResponse> truncate(InetSocketAddress osd, UserCredentials credentials,
            TruncateRequest request) {
        return call(osd, credentials, OsdProcedure.OSD_TRUNCATE_VALUE, request, OsdWriteResponse.parser());
    }

    /** Deletes the file's objects on this OSD (done asynchronously by the OSD, surviving restarts). */
    public CompletableFuture<Empty> unlink(InetSocketAddress osd, UserCredentials credentials, FileRequest request) {
        return call(osd, credentials, OsdProcedure.OSD_UNLINK_VALUE, request, Empty.parser());
    }

    /**
     * Has the OSD queue the deletion of a batch of deleted files' objects (sent by the MRC; osd.proto
     * OSD_DELETE_FILES): answered once the OSD recorded them durably.
     */
    public CompletableFuture<Empty> deleteFiles(InetSocketAddress osd, UserCredentials credentials,
            DeleteFilesRequest request) {
        return call(osd, credentials, OsdProcedure.OSD_DELETE_FILES_VALUE, request, Empty.parser());
    }

    public CompletableFuture<Empty> fsync(InetSocketAddress osd, UserCredentials credentials, FileRequest request) {
        return call(osd, credentials, OsdProcedure.OSD_FSYNC_VALUE, request, Empty.parser());
    }

    public CompletableFuture<GetFileSizeResponse> getFileSize(InetSocketAddress osd, UserCredentials credentials,
            FileRequest request) {
        return call(osd, credentials, OsdProcedure.OSD_GET_FILE_SIZE_VALUE, request, GetFileSizeResponse.parser());
    }

    /**
     * Fills the OSD's copy of a file whose XLoc marks its replica as filling; completes when every object of its
     * stripe position is copied, so give this stub a timeout of the file's size over the rate and some.
     */
    public CompletableFuture<FillReplicaResponse> fillReplica(InetSocketAddress osd, UserCredentials credentials,
            FillReplicaRequest request) {
        return call(osd, credentials, OsdProcedure.OSD_FILL_REPLICA_VALUE, request, FillReplicaResponse.parser());
    }

    /** One object of a fill, sent by the filling OSD to itself (see osd.proto OSD_COPY_OBJECT). */
    public CompletableFuture<CopyObjectResponse> copyObject(InetSocketAddress osd, UserCredentials credentials,
            CopyObjectRequest request) {
        return call(osd, credentials, OsdProcedure.OSD_COPY_OBJECT_VALUE, request, CopyObjectResponse.parser());
    }

    public CompletableFuture<Empty> ping(InetSocketAddress osd) {
        return call(osd, UserCredentials.getDefaultInstance(), OsdProcedure.OSD_PING_VALUE,
                Empty.getDefaultInstance(), Empty.parser());
    }
}
