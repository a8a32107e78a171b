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

/** RmdirOp.rmdir: only empty directories go; the parent's nlink follows. */
class RmdirOpTest extends OnOneVolume {
    @Test
    void rmdirRemovesOnlyEmptyDirectories() throws Exception {
        // rmdir: ENOTEMPTY with entries, ENOTDIR on files, ENOENT when missing; parent nlink drops.
        MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755);
        MkdirOp.mkdir(namespace, root(), "vol", "/a/b", 0755);
        create("/f");
        expectErrno(Errno.ENOTEMPTY, () -> RmdirOp.rmdir(namespace, root(), "vol", "/a"));
        expectErrno(Errno.ENOTDIR, () -> RmdirOp.rmdir(namespace, root(), "vol", "/f"));
        expectErrno(Errno.ENOENT, () -> RmdirOp.rmdir(namespace, root(), "vol", "/zzz"));
        expectErrno(Errno.EINVAL, () -> RmdirOp.rmdir(namespace, root(), "vol", "/a/."));
        assertThat(stat("/a").getNlink()).isEqualTo(3);
        RmdirOp.rmdir(namespace, root(), "vol", "/a/b");
        assertThat(stat("/a").getNlink()).isEqualTo(2);
        RmdirOp.rmdir(namespace, root(), "vol", "/a");
        expectErrno(Errno.ENOENT, () -> stat("/a"));
        assertThat(stat("/").getNlink()).isEqualTo(2);
    }
}
