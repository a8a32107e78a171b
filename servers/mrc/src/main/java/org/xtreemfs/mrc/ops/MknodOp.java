package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.MknodRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_MKNOD: creates a FIFO, socket, device node (metadata only) or empty regular file. */
public final class MknodOp extends MetadataOp<MknodRequest, Stat> {
    public MknodOp(OpServices services) {
        super(services, "MRC_MKNOD", MknodRequest.parser(), ResultCodec.message(Stat.parser()));
    }

    @Override
    protected Stat apply(OperationContext context, MknodRequest request) throws RpcException {
        return mknod(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getMode(),
                request.getRdev());
    }

    @Override
    protected MessageLite answer(RpcCall call, Stat stat) {
        return GetattrResponse.newBuilder().setStat(stat).build();
    }

    /** Type 0 means a regular file; devices need root and keep {@code rdev}. One batch. */
    public static Stat mknod(Namespace namespace, OperationContext context, String volumeName, String path, int mode,
            long rdev) throws RpcException {
        int type = FileModes.type(mode) == 0 ? FileModes.S_IFREG : FileModes.type(mode);
        if (!FileModes.isMknodType(type)) {
            throw RpcException.errno(Errno.EINVAL, "mknod cannot create '" + path + "' of type 0"
                    + Integer.toOctalString(type));
        }
        boolean device = type == FileModes.S_IFCHR || type == FileModes.S_IFBLK;
        if (device && !context.caller().isRoot()) {
            throw RpcException.errno(Errno.EPERM, "only root may create device node '" + path + "'");
        }
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Namespace.Entry entry = namespace.resolveNew(transaction, volume, context.caller(), path);
        long inode = namespace.allocateInode(transaction, volume.getId());
        Stat stat = Namespace.newStat(context, inode, type | (mode & FileModes.PERMISSION_MASK), 1,
                Namespace.inheritedGid(context, entry.parent()), volume)
                .setRdev(device ? rdev : 0)
                .build();
        namespace.insertEntry(transaction, volume.getId(), entry, new InodeRecord(stat, null, null, 0, 0), context);
        transaction.commit();
        return stat;
    }
}
