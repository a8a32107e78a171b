package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.mrc.metadata.Namespace;

/** ReadlinkOp.readlink: the stored target, exactly as given; errors for everything that is not a link. */
class ReadlinkOpTest {
    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;

    @BeforeEach
    void createVolume() throws Exception {
        fixture.createVolume("vol");
    }

    @Test
    void returnsTheTargetUnresolved() throws Exception {
        // The target is text: absolute, relative or dangling, it comes back byte for byte, never resolved.
        MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/d", 0755);
        SymlinkOp.symlink(namespace, fixture.as(ROOT), "vol", "/abs/olute", "/d/a");
        SymlinkOp.symlink(namespace, fixture.as(ROOT), "vol", "../d/./x y", "/d/r");
        assertThat(ReadlinkOp.readlink(namespace, fixture.as(ALICE), "vol", "/d/a")).isEqualTo("/abs/olute");
        assertThat(ReadlinkOp.readlink(namespace, fixture.as(ALICE), "vol", "/d/r")).isEqualTo("../d/./x y");
    }

    @Test
    void directoriesMissingNamesAndUnsearchableParentsFail() throws Exception {
        // A directory is EINVAL, a missing name ENOENT, a link in a directory the caller cannot search EACCES.
        MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/d", 0700);
        SymlinkOp.symlink(namespace, fixture.as(ROOT), "vol", "t", "/d/l");
        expectErrno(Errno.EINVAL, () -> ReadlinkOp.readlink(namespace, fixture.as(ROOT), "vol", "/d"));
        expectErrno(Errno.ENOENT, () -> ReadlinkOp.readlink(namespace, fixture.as(ROOT), "vol", "/d/none"));
        expectErrno(Errno.EACCES, () -> ReadlinkOp.readlink(namespace, fixture.as(ALICE), "vol", "/d/l"));
        assertThat(ReadlinkOp.readlink(namespace, fixture.as(ROOT), "vol", "/d/l")).isEqualTo("t");
    }
}
