package org.xtreemfs.mrc.ops;

import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** LinkOp.link: hard links to non-directories only. */
class LinkOpTest extends OnOneVolume {
    @Test
    void hardLinkToDirectoryIsEperm() throws Exception {
        // link(2) refuses directories (EPERM) and existing link names (EEXIST).
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        create("/f");
        expectErrno(Errno.EPERM, () -> LinkOp.link(namespace, root(), "vol", "/d", "/d2"));
        expectErrno(Errno.EEXIST, () -> LinkOp.link(namespace, root(), "vol", "/f", "/d"));
        expectErrno(Errno.ENOENT, () -> LinkOp.link(namespace, root(), "vol", "/nope", "/x"));
    }
}
