package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.APPEND;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.EXCL;
import static org.xtreemfs.mrc.ops.NamespaceFixture.RDWR;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.TRUNC;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** OpenOp.open: creation, flags, truncation, directories and placement of a file's layout. */
class OpenOpTest extends OnOneVolume {
    @Test
    void createOpenAllocatesLayoutAndHonoursFlags() throws Exception {
        // O_CREAT creates with a layout on width OSDs; O_EXCL on an existing file is EEXIST; no O_CREAT is ENOENT.
        OpenResult created = create("/f");
        assertThat(created.record().isRegularFile()).isTrue();
        assertThat(created.record().xlocs().getReplicas(0).getOsdUuidsCount()).isEqualTo(1);
        assertThat(created.accessMode()).isEqualTo(AccessMode.ACCESS_MODE_WRITE);
        assertThat(created.record().stat().getMode()).isEqualTo(FileModes.S_IFREG | 0644);
        OpenResult again = fixture.open(root(), "vol", "/f", RDWR | APPEND, 0);
        assertThat(again.record().xlocs()).isEqualTo(created.record().xlocs());
        assertThat(again.accessMode()).isEqualTo(AccessMode.ACCESS_MODE_READ_WRITE);
        expectErrno(Errno.EEXIST, () -> fixture.open(root(), "vol", "/f", CREAT | EXCL | WRONLY, 0644));
        expectErrno(Errno.ENOENT, () -> fixture.open(root(), "vol", "/g", WRONLY, 0644));
        expectErrno(Errno.ENOTDIR, () -> fixture.open(root(), "vol", "/f/x", CREAT | WRONLY, 0644));
        expectErrno(Errno.ENOTDIR, () -> fixture.open(root(), "vol", "/f/", RDWR, 0644));
        expectErrno(Errno.EISDIR, () -> fixture.open(root(), "vol", "/new/", CREAT | RDWR, 0644));
        assertThat(fixture.open(root(), "vol", "/f", 0, 0).accessMode()).isEqualTo(AccessMode.ACCESS_MODE_READ);
    }

    @Test
    void createHandsBackItsDirectoryAsGetattrSeesItAfterwards() throws Exception {
        // The answer's directory Stat (which the mount caches for the kernel's getattr after the create) is the
        // committed one: new mtime and ctime, same link count. An open that creates nothing hands back none, and
        // neither does a result read back from the outcome journal (a repeat's answer).
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        Stat before = stat("/d");
        OpenResult created = fixture.open(root(), "vol", "/d/f", CREAT | EXCL | WRONLY, 0644);
        assertThat(created.directory()).contains(stat("/d"));
        assertThat(created.directory().get().getMtimeNs()).isGreaterThan(before.getMtimeNs());
        assertThat(created.directory().get().getCtimeNs()).isGreaterThan(before.getCtimeNs());
        assertThat(created.directory().get().getNlink()).isEqualTo(before.getNlink());
        assertThat(fixture.open(root(), "vol", "/d/f", CREAT | WRONLY, 0644).directory()).isEmpty();
        assertThat(fixture.open(root(), "vol", "/d/f", RDWR, 0).directory()).isEmpty();
        OpenResult replayed = ResultCodec.OPEN.decode(ResultCodec.OPEN.encode(created));
        assertThat(replayed.directory()).isEmpty();
        assertThat(replayed.record()).isEqualTo(created.record());
    }

    @Test
    void openTruncSetsSizeZeroUnderNewEpoch() throws Exception {
        // O_TRUNC empties the file and bumps the truncate epoch so stale size updates are ignored.
        OpenResult created = create("/f");
        UpdateFileSizeOp.updateFileSize(namespace, root(), created.volumeId(), created.record().inode(), 5000, 0, true);
        assertThat(stat("/f").getSizeBytes()).isEqualTo(5000);
        OpenResult truncated = fixture.open(root(), "vol", "/f", WRONLY | TRUNC, 0);
        assertThat(truncated.record().stat().getSizeBytes()).isZero();
        assertThat(truncated.record().stat().getTruncateEpoch()).isEqualTo(1);
        UpdateFileSizeOp.updateFileSize(namespace, root(), created.volumeId(), created.record().inode(), 5000, 0, true);
        assertThat(stat("/f").getSizeBytes()).isZero();
    }

    @Test
    void openDirectoryForWritingIsEisdir() throws Exception {
        // Directories open read-only without credentials; for writing they are EISDIR.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        expectErrno(Errno.EISDIR, () -> fixture.open(root(), "vol", "/d", WRONLY, 0));
        expectErrno(Errno.EISDIR, () -> fixture.open(root(), "vol", "/d", RDWR, 0));
        OpenResult read = fixture.open(root(), "vol", "/d", 0, 0);
        assertThat(read.credentialsNeeded()).isFalse();
        assertThat(read.record().hasLayout()).isFalse();
    }

    @Test
    void openWithoutEnoughOsdsNamesNeededAndAvailable() throws Exception {
        // A width larger than the OSD count fails with ENOSPC naming both numbers, and creates nothing.
        fixture.createVolume(root(), org.xtreemfs.interfaces.mrc.Volume.newBuilder().setName("wide")
                .setDefaultStripingPolicy(org.xtreemfs.interfaces.common.StripingPolicy.newBuilder().setWidth(5))
                .build(), "wide-id");
        String message = expectErrno(Errno.ENOSPC, () -> fixture.open(root(), "wide", "/f", CREAT | WRONLY, 0644));
        assertThat(message).contains("width of 5").contains("found 3");
        expectErrno(Errno.ENOENT, () -> GetattrOp.getattr(namespace, root(), "wide", "/f"));
    }
}
