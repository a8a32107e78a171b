package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** UnlinkOp.unlink: link counts, the deleted file handed back, and the errors. */
class UnlinkOpTest extends OnOneVolume {
    @Test
    void unlinkDropsLinksAndReportsTheDeletedFile() throws Exception {
        // unlink of the last link returns the deleted file's layout; earlier links only lower nlink.
        OpenResult created = create("/f");
        LinkOp.link(namespace, root(), "vol", "/f", "/g");
        assertThat(stat("/f").getNlink()).isEqualTo(2);
        assertThat(UnlinkOp.unlink(namespace, root(), "vol", "/f")).isEmpty();
        assertThat(stat("/g").getNlink()).isEqualTo(1);
        Optional<DeletedFile> deleted = UnlinkOp.unlink(namespace, root(), "vol", "/g");
        assertThat(deleted).isPresent();
        assertThat(deleted.get().xlocs()).isEqualTo(created.record().xlocs());
        assertThat(deleted.get().fileId()).isEqualTo(created.volumeId() + ":" + created.record().inode());
        expectErrno(Errno.ENOENT, () -> namespace.inodeOf(namespace.begin(), created.volumeId(),
                created.record().inode()));
    }

    @Test
    void unlinkErrors() throws Exception {
        // unlink of a directory is EISDIR, of a missing name ENOENT.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> UnlinkOp.unlink(namespace, root(), "vol", "/d"));
        expectErrno(Errno.ENOENT, () -> UnlinkOp.unlink(namespace, root(), "vol", "/nope"));
        expectErrno(Namespace.EBUSY, () -> UnlinkOp.unlink(namespace, root(), "vol", "/"));
    }
}
