package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** GetattrOp.getattr and the core's path resolution: trailing slashes, dot entries. */
class GetattrOpTest extends OnOneVolume {
    @Test
    void trailingSlashNeedsADirectory() throws Exception {
        // "file/" is ENOTDIR for lookups and removals; "dir/" works.
        create("/f");
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.ENOTDIR, () -> stat("/f/"));
        expectErrno(Errno.ENOTDIR, () -> UnlinkOp.unlink(namespace, root(), "vol", "/f/"));
        assertThat(stat("/d/").getInode()).isEqualTo(stat("/d").getInode());
        RmdirOp.rmdir(namespace, root(), "vol", "/d/");
    }
}
