package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.nio.charset.StandardCharsets;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.GetattrResponse;
import org.xtreemfs.interfaces.mrc.LinkRequest;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.PathNames;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_SYMLINK: a symbolic link whose content is target_path. */
public final class SymlinkOp extends MetadataOp<LinkRequest, Stat> {
    public SymlinkOp(OpServices services) {
        super(services, "MRC_SYMLINK", LinkRequest.parser(), ResultCodec.message(Stat.parser()));
    }

    @Override
    protected Stat apply(OperationContext context, LinkRequest request) throws RpcException {
        return symlink(services.namespace(), context, request.getVolumeName(), request.getTargetPath(),
                request.getLinkPath());
    }

    @Override
    protected MessageLite answer(RpcCall call, Stat stat) {
        return GetattrResponse.newBuilder().setStat(stat).build();
    }

    /** A link (mode 0777, size = the target's bytes) to {@code target}, which is stored, never resolved. */
    public static Stat symlink(Namespace namespace, OperationContext context, String volumeName, String target,
            String linkPath) throws RpcException {
        if (target.isEmpty()) {
            throw RpcException.errno(Errno.ENOENT, "symlink: empty target for '" + linkPath + "'");
        }
        PathNames.checkSymlinkTarget(target, linkPath);
        int targetBytes = target.getBytes(StandardCharsets.UTF_8).length;
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        Namespace.Entry entry = namespace.resolveNew(transaction, volume, context.caller(), linkPath);
        long inode = namespace.allocateInode(transaction, volume.getId());
        Stat stat = Namespace.withBlocks(Namespace.newStat(context, inode, FileModes.S_IFLNK | 0777, 1,
                Namespace.inheritedGid(context, entry.parent()), volume).setSizeBytes(targetBytes).build());
        namespace.insertEntry(transaction, volume.getId(), entry, new InodeRecord(stat, null, target, 0, 0), context);
        transaction.commit();
        return stat;
    }
}
