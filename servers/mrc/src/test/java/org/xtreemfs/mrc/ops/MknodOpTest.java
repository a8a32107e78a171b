package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** MknodOp.mknod: special files are metadata only; devices need root. */
class MknodOpTest extends OnOneVolume {
    @Test
    void mknodKeepsSpecialFilesAsMetadata() throws Exception {
        // FIFOs, sockets and device nodes are stored with type and rdev; they get no layout on open.
        Stat fifo = MknodOp.mknod(namespace, root(), "vol", "/fifo", FileModes.S_IFIFO | 0600, 0);
        assertThat(FileModes.type(fifo.getMode())).isEqualTo(FileModes.S_IFIFO);
        Stat device = MknodOp.mknod(namespace, root(), "vol", "/dev", FileModes.S_IFCHR | 0600, 0x0501);
        assertThat(device.getRdev()).isEqualTo(0x0501);
        MknodOp.mknod(namespace, root(), "vol", "/sock", FileModes.S_IFSOCK | 0600, 0);
        assertThat(fixture.open(root(), "vol", "/fifo", 0, 0).credentialsNeeded()).isFalse();
        expectErrno(Errno.EINVAL, () -> MknodOp.mknod(namespace, root(), "vol", "/dir", FileModes.S_IFDIR | 0700, 0));
        expectErrno(Errno.EPERM, () -> MknodOp.mknod(namespace, fixture.as(ALICE), "vol", "/dev2",
                FileModes.S_IFBLK | 0600, 1));
    }
}
