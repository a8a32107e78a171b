package org.xtreemfs.foundation.stubs;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.interfaces.mrc.AccessRequest;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.LinkRequest;
import org.xtreemfs.interfaces.mrc.MkdirRequest;
import org.xtreemfs.interfaces.mrc.MknodRequest;
import org.xtreemfs.interfaces.mrc.OpenRequest;
import org.xtreemfs.interfaces.mrc.OpenResponse;
import org.xtreemfs.interfaces.mrc.PathRequest;
import org.xtreemfs.interfaces.mrc.ReaddirRequest;
import org.xtreemfs.interfaces.mrc.ReaddirResponse;
import org.xtreemfs.interfaces.mrc.ReadlinkResponse;
import org.xtreemfs.interfaces.mrc.RenameRequest;
import org.xtreemfs.interfaces.mrc.ReplicaFailedRequest;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.SetattrRequest;
import org.xtreemfs.interfaces.mrc.StatvfsResponse;
import org.xtreemfs.interfaces.mrc.UnlinkResponse;
import org.xtreemfs.interfaces.mrc.UpdateFileSizeRequest;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.QosStatusRequest;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeCreateRequest;
import org.xtreemfs.interfaces.mrc.VolumeList;
import org.xtreemfs.interfaces.mrc.VolumeSetReservationRequest;
import org.xtreemfs.interfaces.mrc.VolumeNameRequest;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.interfaces.mrc.XCapResponse;
import org.xtreemfs.interfaces.mrc.XattrNames;
import org.xtreemfs.interfaces.mrc.XattrRequest;
import org.xtreemfs.interfaces.mrc.XattrValue;
import org.xtreemfs.interfaces.mrc.MrcInterface;
import org.xtreemfs.interfaces.mrc.MrcProcedure;
import org.xtreemfs.interfaces.rpc.Empty;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Typed stub of the MRC interface (mrc.proto): one method per procedure. Credentials are the caller's
 * trusted identity, checked by the MRC against POSIX permissions.
 */
public final class MrcServiceClient extends ServiceStub {
    public MrcServiceClient(RpcClient rpcClient, long timeoutMs) {
        super(rpcClient, MrcInterface.MRC_INTERFACE_ID_VALUE, timeoutMs);
    }

    private MrcServiceClient(RpcClient rpcClient, long timeoutMs, String clientId, long requestNumber) {
        super(rpcClient, MrcInterface.MRC_INTERFACE_ID_VALUE, timeoutMs, clientId, requestNumber);
    }

    /**
     * The same stub for ONE change that may be repeated: its calls carry {@code clientId} and
     * {@code requestNumber}, so the MRC applies the change once and answers every repeat with its outcome.
     * Use a new number per change, never one twice.
     */
    public MrcServiceClient exactlyOnce(String clientId, long requestNumber) {
        if (clientId.isEmpty() || requestNumber <= 0) {
            throw new IllegalArgumentException("exactly-once calls need a client id and a positive request number,"
                    + " not '" + clientId + "' and " + requestNumber);
        }
        return new MrcServiceClient(rpcClient(), timeoutMs(), clientId, requestNumber);
    }

    public CompletableFuture<Volume> volumeCreate(InetSocketAddress mrc, UserCredentials credentials, VolumeCreateRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_VOLUME_CREATE_VALUE, request, Volume.parser());
    }

    public CompletableFuture<Empty> volumeDelete(InetSocketAddress mrc, UserCredentials credentials, VolumeNameRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_VOLUME_DELETE_VALUE, request, Empty.parser());
    }

    public CompletableFuture<VolumeList> volumeList(InetSocketAddress mrc, UserCredentials credentials, Empty request) {
        return call(mrc, credentials, MrcProcedure.MRC_VOLUME_LIST_VALUE, request, VolumeList.parser());
    }

    public CompletableFuture<GetattrResponse> getattr(InetSocketAddress mrc, UserCredentials credentials, PathRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_GETATTR_VALUE, request, GetattrResponse.parser());
    }

    public CompletableFuture<GetattrResponse> setattr(InetSocketAddress mrc, UserCredentials credentials, SetattrRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_SETATTR_VALUE, request, GetattrResponse.parser());
    }

    public CompletableFuture<GetattrResponse> mkdir(InetSocketAddress mrc, UserCredentials credentials, MkdirRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_MKDIR_VALUE, request, GetattrResponse.parser());
    }

    public CompletableFuture<GetattrResponse> mknod(InetSocketAddress mrc, UserCredentials credentials, MknodRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_MKNOD_VALUE, request, GetattrResponse.parser());
    }

    public CompletableFuture<Empty> rmdir(InetSocketAddress mrc, UserCredentials credentials, PathRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_RMDIR_VALUE, request, Empty.parser());
    }

    public CompletableFuture<OpenResponse> open(InetSocketAddress mrc, UserCredentials credentials, OpenRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_OPEN_VALUE, request, OpenResponse.parser());
    }

    public CompletableFuture<UnlinkResponse> unlink(InetSocketAddress mrc, UserCredentials credentials, PathRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_UNLINK_VALUE, request, UnlinkResponse.parser());
    }

    public CompletableFuture<UnlinkResponse> rename(InetSocketAddress mrc, UserCredentials credentials, RenameRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_RENAME_VALUE, request, UnlinkResponse.parser());
    }

    public CompletableFuture<GetattrResponse> link(InetSocketAddress mrc, UserCredentials credentials, LinkRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_LINK_VALUE, request, GetattrResponse.parser());
    }

    public CompletableFuture<GetattrResponse> symlink(InetSocketAddress mrc, UserCredentials credentials, LinkRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_SYMLINK_VALUE, request, GetattrResponse.parser());
    }

    public CompletableFuture<ReadlinkResponse> readlink(InetSocketAddress mrc, UserCredentials credentials, PathRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_READLINK_VALUE, request, ReadlinkResponse.parser());
    }

    public CompletableFuture<ReaddirResponse> readdir(InetSocketAddress mrc, UserCredentials credentials, ReaddirRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_READDIR_VALUE, request, ReaddirResponse.parser());
    }

    public CompletableFuture<XattrValue> getxattr(InetSocketAddress mrc, UserCredentials credentials, XattrRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_GETXATTR_VALUE, request, XattrValue.parser());
    }

    public CompletableFuture<Empty> setxattr(InetSocketAddress mrc, UserCredentials credentials, XattrRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_SETXATTR_VALUE, request, Empty.parser());
    }

    public CompletableFuture<XattrNames> listxattr(InetSocketAddress mrc, UserCredentials credentials, PathRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_LISTXATTR_VALUE, request, XattrNames.parser());
    }

    public CompletableFuture<Empty> removexattr(InetSocketAddress mrc, UserCredentials credentials, XattrRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_REMOVEXATTR_VALUE, request, Empty.parser());
    }

    public CompletableFuture<StatvfsResponse> statvfs(InetSocketAddress mrc, UserCredentials credentials, VolumeNameRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_STATVFS_VALUE, request, StatvfsResponse.parser());
    }

    public CompletableFuture<Empty> access(InetSocketAddress mrc, UserCredentials credentials, AccessRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_ACCESS_VALUE, request, Empty.parser());
    }

    public CompletableFuture<XCapResponse> renewCapability(InetSocketAddress mrc, UserCredentials credentials, XCapRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_RENEW_CAPABILITY_VALUE, request, XCapResponse.parser());
    }

    public CompletableFuture<Empty> updateFileSize(InetSocketAddress mrc, UserCredentials credentials, UpdateFileSizeRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_UPDATE_FILE_SIZE_VALUE, request, Empty.parser());
    }

    public CompletableFuture<XLocSet> replicaFailed(InetSocketAddress mrc, UserCredentials credentials,
            ReplicaFailedRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_REPLICA_FAILED_VALUE, request, XLocSet.parser());
    }

    public CompletableFuture<XCapResponse> ftruncate(InetSocketAddress mrc, UserCredentials credentials, XCapRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_FTRUNCATE_VALUE, request, XCapResponse.parser());
    }

    public CompletableFuture<FileLayoutResponse> getFileLayout(InetSocketAddress mrc, UserCredentials credentials, PathRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_GET_FILE_LAYOUT_VALUE, request, FileLayoutResponse.parser());
    }

    public CompletableFuture<Empty> ping(InetSocketAddress mrc, UserCredentials credentials, Empty request) {
        return call(mrc, credentials, MrcProcedure.MRC_PING_VALUE, request, Empty.parser());
    }

    public CompletableFuture<Volume> volumeSetReservation(InetSocketAddress mrc, UserCredentials credentials,
            VolumeSetReservationRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_VOLUME_SET_RESERVATION_VALUE, request, Volume.parser());
    }

    public CompletableFuture<Volume> volumeSetReplication(InetSocketAddress mrc, UserCredentials credentials,
            org.xtreemfs.interfaces.mrc.VolumeSetReplicationRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_VOLUME_SET_REPLICATION_VALUE, request, Volume.parser());
    }

    public CompletableFuture<org.xtreemfs.interfaces.mrc.ReplicaChangeResponse> addReplica(InetSocketAddress mrc,
            UserCredentials credentials, org.xtreemfs.interfaces.mrc.AddReplicaRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_ADD_REPLICA_VALUE, request,
                org.xtreemfs.interfaces.mrc.ReplicaChangeResponse.parser());
    }

    public CompletableFuture<org.xtreemfs.interfaces.mrc.ReplicaChangeResponse> replicaFilled(InetSocketAddress mrc,
            UserCredentials credentials, org.xtreemfs.interfaces.mrc.ReplicaFilledRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_REPLICA_FILLED_VALUE, request,
                org.xtreemfs.interfaces.mrc.ReplicaChangeResponse.parser());
    }

    public CompletableFuture<org.xtreemfs.interfaces.mrc.ReplicaChangeResponse> removeReplica(InetSocketAddress mrc,
            UserCredentials credentials, org.xtreemfs.interfaces.mrc.RemoveReplicaRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_REMOVE_REPLICA_VALUE, request,
                org.xtreemfs.interfaces.mrc.ReplicaChangeResponse.parser());
    }

    public CompletableFuture<QosStatus> qosStatus(InetSocketAddress mrc, UserCredentials credentials,
            QosStatusRequest request) {
        return call(mrc, credentials, MrcProcedure.MRC_QOS_STATUS_VALUE, request, QosStatus.parser());
    }
}
