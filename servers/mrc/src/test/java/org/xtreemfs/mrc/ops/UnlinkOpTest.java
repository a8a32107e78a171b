package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.metadata.Transaction;

/** UnlinkOp.unlink: link counts, the deleted file handed back and recorded, and the errors. */
class UnlinkOpTest extends OnOneVolume {
    @Test
    void unlinkDropsLinksAndReportsTheDeletedFile() throws Exception {
        // unlink of the last link returns the deleted file's layout; earlier links only lower nlink.
        OpenResult created = create("/f");
        List<DeletedFile> reported = new ArrayList<>();
        namespace.onObjectDeletionsCommitted(reported::addAll);
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
        assertThat(namespace.objectDeletions(10)).as("the objects' deletion is recorded in the unlink's batch")
                .containsExactly(deleted.get());
        assertThat(reported).as("and reported once, after that batch").containsExactly(deleted.get());

        Transaction done = namespace.begin();
        namespace.objectDeletionDone(done, deleted.get());
        done.commit();
        assertThat(namespace.objectDeletions(10)).isEmpty();
        assertThat(reported).as("removing the record reports nothing").hasSize(1);
    }

    @Test
    void unlinkHandsBackItsDirectoryAsGetattrSeesItAfterwards() throws Exception {
        // The answer's directory Stat (which the mount caches for the kernel's getattr after the unlink) is the
        // committed one: new mtime and ctime, same link count.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        create("/d/f");
        Stat before = stat("/d");
        UnlinkOp.Unlinked unlinked = UnlinkOp.removeName(namespace, root(), "vol", "/d/f");
        assertThat(unlinked.directory()).contains(stat("/d"));
        assertThat(unlinked.directory().get().getMtimeNs()).isGreaterThan(before.getMtimeNs());
        assertThat(unlinked.directory().get().getNlink()).isEqualTo(before.getNlink());
        assertThat(unlinked.deleted()).isPresent();
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
