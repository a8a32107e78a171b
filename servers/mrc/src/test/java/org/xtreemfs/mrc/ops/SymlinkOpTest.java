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
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** SymlinkOp.symlink: the stored target, and what readlink and open make of it. */
class SymlinkOpTest extends OnOneVolume {
    @Test
    void symlinkAndReadlink() throws Exception {
        // A symlink stores its target; readlink of a non-link is EINVAL; opening a link is ELOOP.
        Stat link = SymlinkOp.symlink(namespace, root(), "vol", "../some/target", "/l");
        assertThat(link.getMode()).isEqualTo(FileModes.S_IFLNK | 0777);
        assertThat(link.getSizeBytes()).isEqualTo("../some/target".length());
        assertThat(ReadlinkOp.readlink(namespace, root(), "vol", "/l")).isEqualTo("../some/target");
        create("/f");
        expectErrno(Errno.EINVAL, () -> ReadlinkOp.readlink(namespace, root(), "vol", "/f"));
        expectErrno(Errno.EEXIST, () -> SymlinkOp.symlink(namespace, root(), "vol", "x", "/f"));
        expectErrno(Errno.ELOOP, () -> fixture.open(root(), "vol", "/l", 0, 0));
    }

    @Test
    void targetsUpToLinuxLimitAreStored() throws Exception {
        // A target of 4095 bytes is stored whole; one byte more is ENAMETOOLONG, as on Linux.
        String longest = "t".repeat(4095);
        SymlinkOp.symlink(namespace, root(), "vol", longest, "/longest");
        assertThat(ReadlinkOp.readlink(namespace, root(), "vol", "/longest")).isEqualTo(longest);
        expectErrno(Errno.ENAMETOOLONG, () -> SymlinkOp.symlink(namespace, root(), "vol", longest + "t", "/over"));
    }
}
