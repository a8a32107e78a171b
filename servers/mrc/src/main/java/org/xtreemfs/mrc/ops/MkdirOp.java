package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.MkdirRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_MKDIR: creates a directory (mode as given; the client applies its umask). */
public final class MkdirOp extends MetadataOp<MkdirRequest, Stat> {
    public MkdirOp(OpServices services) {
        super(services, "MRC_MKDIR", MkdirRequest.parser(), ResultCodec.message(Stat.parser()));
    }

    @Override
    protected Stat apply(OperationContext context, MkdirRequest request) throws RpcException {
        return mkdir(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getMode());
    }

    @Override
    protected MessageLite answer(RpcCall call, Stat stat) {
        return GetattrResponse.newBuilder().setStat(stat).build();
    }

    /**
     * Creates the directory with nlink 2 and raises the parent's nlink; in a setgid parent it takes the
     * parent's group and inherits setgid. One batch.
     */
    public static Stat mkdir(Namespace namespace, OperationContext context, String volumeName, String path, int mode)
            throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Namespace.Entry entry = namespace.resolveNew(transaction, volume, context.caller(), path);
        InodeRecord parent = entry.parent();
        int gid = context.caller().gid();
        int permissions = mode & FileModes.PERMISSION_MASK;
        if ((parent.mode() & FileModes.S_ISGID) != 0) {
            gid = parent.stat().getGid();
            permissions |= FileModes.S_ISGID;
        }
        long inode = namespace.allocateInode(transaction, volume.getId());
        Stat stat = Namespace.newStat(context, inode, FileModes.S_IFDIR | permissions, 2, gid, volume).build();
        namespace.insertEntry(transaction, volume.getId(), entry, new InodeRecord(stat, null, null, parent.inode(), 0),
                context);
        transaction.commit();
        return stat;
    }
}
