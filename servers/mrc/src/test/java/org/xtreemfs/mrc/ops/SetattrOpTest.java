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

/** SetattrOp.setattr: mode, times, size and owner (permission rules: PermissionTest, PosixMetadataTest). */
class SetattrOpTest extends OnOneVolume {
    @Test
    void setattrChangesModeTimesAndSizeAndCtime() throws Exception {
        // chmod keeps the type bits; explicit and _NOW times apply; size via truncate bumps the epoch.
        create("/f");
        Stat before = stat("/f");
        Stat chmod = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setMode(0600).build(), 1);
        assertThat(chmod.getMode()).isEqualTo(FileModes.S_IFREG | 0600);
        assertThat(chmod.getCtimeNs()).isGreaterThan(before.getCtimeNs());
        Stat times = SetattrOp.setattr(namespace, root(), "vol", "/f",
                Stat.newBuilder().setAtimeNs(11).setMtimeNs(22).build(), 16 | 32);
        assertThat(times.getAtimeNs()).isEqualTo(11);
        assertThat(times.getMtimeNs()).isEqualTo(22);
        Stat now = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.getDefaultInstance(), 16 | 32 | 128 | 256);
        assertThat(now.getAtimeNs()).isEqualTo(now.getCtimeNs());
        assertThat(now.getMtimeNs()).isEqualTo(now.getCtimeNs());
        Stat truncated = SetattrOp.setattr(namespace, root(), "vol", "/f",
                Stat.newBuilder().setSizeBytes(4096).build(), 8);
        assertThat(truncated.getSizeBytes()).isEqualTo(4096);
        assertThat(truncated.getTruncateEpoch()).isEqualTo(1);
        assertThat(truncated.getBlocks()).isEqualTo(8);
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> SetattrOp.setattr(namespace, root(), "vol", "/d",
                Stat.newBuilder().setSizeBytes(1).build(), 8));
        Stat chown = SetattrOp.setattr(namespace, root(), "vol", "/f", Stat.newBuilder().setUid(5).setGid(6).build(),
                2 | 4);
        assertThat(chown.getUid()).isEqualTo(5);
        assertThat(chown.getGid()).isEqualTo(6);
    }
}
