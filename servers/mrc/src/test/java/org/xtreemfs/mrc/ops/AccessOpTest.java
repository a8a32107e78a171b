package org.xtreemfs.mrc.ops;

import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
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

/** AccessOp.access: the requested bits against the caller. */
class AccessOpTest extends OnOneVolume {
    @Test
    void accessChecksRequestedBits() throws Exception {
        // access() reports EACCES for missing bits and ENOENT for missing files.
        create("/f");
        SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setMode(0640).setUid(1000).build(), 1 | 2);
        AccessOp.access(namespace, fixture.as(ALICE), "vol", "/f", 4 | 2);
        expectErrno(Errno.EACCES, () -> AccessOp.access(namespace, fixture.as(ALICE), "vol", "/f", 1));
        expectErrno(Errno.EACCES, () -> AccessOp.access(namespace, fixture.as(NamespaceFixture.BOB), "vol", "/f", 4));
        expectErrno(Errno.ENOENT, () -> AccessOp.access(namespace, fixture.as(ALICE), "vol", "/g", 0));
    }
}
