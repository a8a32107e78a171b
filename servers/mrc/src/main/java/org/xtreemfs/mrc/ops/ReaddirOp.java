package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.ReaddirRequest;
import org.xtreemfs.interfaces.mrc.ReaddirResponse;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Permissions;
import org.xtreemfs.mrc.metadata.Transaction;

/** MRC_READDIR: one page of a directory in name order, "." and ".." first. */
public final class ReaddirOp extends MetadataOp<ReaddirRequest, ReaddirResponse> {
    public static final int READDIR_LIMIT_DEFAULT = 1024;
    public static final int READDIR_LIMIT_MAX = 10_000;

    public ReaddirOp(OpServices services) {
        super(services, "MRC_READDIR", ReaddirRequest.parser());
    }

    /**
     * A listing from offset 0 is an access that may write atime (the metadata thread applies it); later pages
     * only read and are served on the network thread (MetadataOp#readsOnly).
     */
    @Override
    protected boolean readsOnly(ReaddirRequest request) {
        return request.getOffset() != 0;
    }

    @Override
    protected ReaddirResponse apply(OperationContext context, ReaddirRequest request) throws RpcException {
        return readdir(services.namespace(), context, request.getVolumeName(), request.getPath(), request.getOffset(),
                request.getAfterName(), request.getLimit(), request.getNamesOnly());
    }

    @Override
    protected MessageLite answer(RpcCall call, ReaddirResponse page) {
        return page;
    }

    /**
     * A page of at most {@code limit} entries (0: {@link #READDIR_LIMIT_DEFAULT}, capped at
     * {@link #READDIR_LIMIT_MAX}) from position {@code offset}: 0 is ".", 1 is "..", 2 + i the i-th entry in
     * name order; each entry carries the offset of the next. A listing from offset 0 is an access (atime
     * policy: at most one batch); other pages read only.
     */
    public static ReaddirResponse readdir(Namespace namespace, OperationContext context, String volumeName,
            String path, long offset, int limit, boolean namesOnly) throws RpcException {
        return readdir(namespace, context, volumeName, path, offset, "", limit, namesOnly);
    }

    /**
     * As above; a non-empty {@code afterName} continues right after the entry of that name (which need not exist
     * any more) instead of counting {@code offset} entries from the start, and numbers the page's entries from
     * {@code offset} (the position the caller reached). Why: counting from the start made every page of a listing
     * cost its offset, a whole listing quadratic in its length. Entries created or removed meanwhile do not shift
     * such a continuation: every entry present throughout is listed exactly once, as POSIX asks of readdir.
     */
    public static ReaddirResponse readdir(Namespace namespace, OperationContext context, String volumeName,
            String path, long offset, String afterName, int limit, boolean namesOnly) throws RpcException {
        if (!afterName.isEmpty() && offset < 3) {
            throw RpcException.invalidArguments("readdir: after_name '" + afterName + "' needs an offset of at least 3,"
                    + " not " + offset);
        }
        Volume volume = namespace.volume(volumeName);
        Transaction transaction = namespace.begin();
        InodeRecord directory = namespace.resolve(transaction, volume, context.caller(), path);
        if (!directory.isDirectory()) {
            throw RpcException.errno(Errno.ENOTDIR, "readdir: '" + path + "' is not a directory");
        }
        Permissions.check(context.caller(), directory.stat(), Permissions.READ, path);
        if (offset == 0) {
            Optional<Stat> accessed = namespace.accessed(directory.stat(), context);
            if (accessed.isPresent()) {
                directory = directory.withStat(accessed.get());
                namespace.putInode(transaction, volume.getId(), directory);
                transaction.commit();
            }
        }
        int pageSize = limit == 0 ? READDIR_LIMIT_DEFAULT : Math.min(limit, READDIR_LIMIT_MAX);
        ReaddirResponse.Builder response = ReaddirResponse.newBuilder();
        for (long index = offset; index < 2 && response.getEntriesCount() < pageSize; index++) {
            InodeRecord record = index == 0 ? directory
                    : namespace.loadInode(transaction, volume.getId(), directory.parentInode());
            response.addEntries(entry(index == 0 ? "." : "..", record.stat(), index + 1, namesOnly));
        }
        int room = pageSize - response.getEntriesCount();
        // One entry more than fits tells whether the directory goes on after this page.
        List<Namespace.Dentry> dentries = afterName.isEmpty()
                ? namespace.dentries(volume.getId(), directory.inode(), Math.max(0, offset - 2), room + 1)
                : namespace.dentriesAfter(volume.getId(), directory.inode(), afterName, room + 1);
        boolean end = dentries.size() <= room;
        List<Namespace.Dentry> page = dentries.subList(0, Math.min(room, dentries.size()));
        // The page's Stats from the cache where it holds them, the rest in one read of the store (not a get each).
        List<Stat> stats = namesOnly ? null : namespace.loadStats(transaction, volume.getId(),
                page.stream().map(Namespace.Dentry::inode).toList());
        long position = Math.max(2, offset);
        for (int i = 0; i < page.size(); i++) {
            position++;
            response.addEntries(entry(page.get(i).name(), namesOnly ? null : stats.get(i), position, namesOnly));
        }
        return response.setEndOfDirectory(end).build();
    }

    private static DirectoryEntry entry(String name, Stat stat, long nextOffset, boolean namesOnly) {
        DirectoryEntry.Builder entry = DirectoryEntry.newBuilder().setName(name).setNextOffset(nextOffset);
        if (!namesOnly && stat != null) {
            entry.setStat(stat);
        }
        return entry.build();
    }
}
