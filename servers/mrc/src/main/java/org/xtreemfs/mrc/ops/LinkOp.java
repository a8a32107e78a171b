package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.LinkRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_LINK: a hard link to an existing non-directory. */
public final class LinkOp extends MetadataOp<LinkRequest, Stat> {
    public LinkOp(OpServices services) {
        super(services, "MRC_LINK", LinkRequest.parser(), ResultCodec.message(Stat.parser()));
    }

    @Override
    protected Stat apply(OperationContext context, LinkRequest request) throws RpcException {
        return link(services.namespace(), context, request.getVolumeName(), request.getTargetPath(),
                request.getLinkPath());
    }

    @Override
    protected MessageLite answer(RpcCall call, Stat stat) {
        return GetattrResponse.newBuilder().setStat(stat).build();
    }

    /** Links {@code linkPath} to the inode of {@code existingPath} (EPERM on directories); nlink + 1. One batch. */
    public static Stat link(Namespace namespace, OperationContext context, String volumeName, String existingPath,
            String linkPath) throws RpcException {
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        InodeRecord target = namespace.resolve(transaction, volume, context.caller(), existingPath);
        if (target.isDirectory()) {
            throw RpcException.errno(Errno.EPERM, "link: '" + existingPath + "' is a directory");
        }
        Namespace.Entry entry = namespace.resolveNew(transaction, volume, context.caller(), linkPath);
        namespace.putDentry(transaction, volume.getId(), entry.parent().inode(), entry.name(), target.inode());
        Stat stat = target.stat().toBuilder().setNlink(target.stat().getNlink() + 1)
                .setCtimeNs(context.nowNanos()).build();
        namespace.putInode(transaction, volume.getId(), target.withStat(stat));
        namespace.touchDirectory(transaction, volume.getId(), entry.parent().inode(), 0, context);
        transaction.commit();
        return stat;
    }
}
