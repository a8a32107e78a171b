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

/** MkdirOp.mkdir: new directories, the parent's nlink and times, and the errors of a name to create. */
class MkdirOpTest extends OnOneVolume {
    @Test
    void mkdirCreatesDirectoryAndUpdatesParent() throws Exception {
        // mkdir gives nlink 2, raises the parent's nlink and its mtime/ctime.
        Stat rootBefore = stat("/");
        Stat created = MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755);
        assertThat(created.getMode()).isEqualTo(FileModes.S_IFDIR | 0755);
        assertThat(created.getNlink()).isEqualTo(2);
        Stat rootAfter = stat("/");
        assertThat(rootAfter.getNlink()).isEqualTo(3);
        assertThat(rootAfter.getMtimeNs()).isGreaterThan(rootBefore.getMtimeNs());
        assertThat(rootAfter.getCtimeNs()).isGreaterThan(rootBefore.getCtimeNs());
        assertThat(stat("/a")).isEqualTo(created);
        assertThat(stat("/a/.")).isEqualTo(created);
        assertThat(stat("/a/..").getInode()).isEqualTo(Namespace.ROOT_INODE);
    }

    @Test
    void mkdirErrors() throws Exception {
        // Existing names are EEXIST, missing parents ENOENT, file parents ENOTDIR, long names ENAMETOOLONG.
        MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755);
        create("/f");
        expectErrno(Errno.EEXIST, () -> MkdirOp.mkdir(namespace, root(), "vol", "/a", 0755));
        expectErrno(Errno.EEXIST, () -> MkdirOp.mkdir(namespace, root(), "vol", "/f", 0755));
        expectErrno(Errno.EEXIST, () -> MkdirOp.mkdir(namespace, root(), "vol", "/", 0755));
        expectErrno(Errno.ENOENT, () -> MkdirOp.mkdir(namespace, root(), "vol", "/missing/b", 0755));
        expectErrno(Errno.ENOTDIR, () -> MkdirOp.mkdir(namespace, root(), "vol", "/f/b", 0755));
        expectErrno(Errno.ENAMETOOLONG, () -> MkdirOp.mkdir(namespace, root(), "vol", "/" + "n".repeat(256), 0755));
        MkdirOp.mkdir(namespace, root(), "vol", "/" + "n".repeat(255), 0755);
    }

    @Test
    void pathsFromTheRootHaveNoLengthLimit() throws Exception {
        // PATH_MAX bounds what one system call passes (relative to its working directory), not the depth
        // of a tree: 40 directories of 250 bytes are a path of over 10,000 bytes, and every level works.
        StringBuilder path = new StringBuilder();
        for (int level = 0; level < 40; level++) {
            path.append('/').append(String.format("%02d", level)).append("d".repeat(248));
            MkdirOp.mkdir(namespace, root(), "vol", path.toString(), 0755);
        }
        assertThat(path.length()).isGreaterThan(10_000);
        create(path + "/f");
        assertThat(stat(path + "/f").getMode() & FileModes.S_IFMT).isEqualTo(FileModes.S_IFREG);
        expectErrno(Errno.ENAMETOOLONG, () -> stat(path + "/" + "n".repeat(256)));
    }
}
