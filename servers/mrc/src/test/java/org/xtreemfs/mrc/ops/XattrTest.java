package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.BOB;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.Namespace;

/** The xattr operations: GetxattrOp, SetxattrOp, ListxattrOp and RemovexattrOp. */
class XattrTest {
    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;
    private OpenResult file;

    @BeforeEach
    void createFile() throws Exception {
        fixture.createVolume("vol");
        file = fixture.open(fixture.as(ALICE), "vol", "/f", NamespaceFixture.CREAT | NamespaceFixture.WRONLY, 0644);
    }

    private void set(Caller caller, String name, String value, int flags) throws Exception {
        SetxattrOp.setxattr(namespace, fixture.as(caller), "vol", "/f", name, value.getBytes(StandardCharsets.UTF_8),
                flags);
    }

    private String get(Caller caller, String name) throws Exception {
        return new String(GetxattrOp.getxattr(namespace, fixture.as(caller), "vol", "/f", name),
                StandardCharsets.UTF_8);
    }

    @Test
    void setGetListRemove() throws Exception {
        // user.* attributes round-trip, list in name order, and disappear on remove (then ENODATA).
        Stat before = GetattrOp.getattr(namespace, fixture.as(ALICE), "vol", "/f");
        set(ALICE, "user.b", "2", 0);
        set(ALICE, "user.a", "1", 0);
        assertThat(get(ALICE, "user.a")).isEqualTo("1");
        assertThat(ListxattrOp.listxattr(namespace, fixture.as(ALICE), "vol", "/f")).containsExactly("user.a",
                "user.b");
        assertThat(GetattrOp.getattr(namespace, fixture.as(ALICE), "vol",
                "/f").getCtimeNs()).isGreaterThan(before.getCtimeNs());
        RemovexattrOp.removexattr(namespace, fixture.as(ALICE), "vol", "/f", "user.a");
        expectErrno(Errno.ENODATA, () -> get(ALICE, "user.a"));
        expectErrno(Errno.ENODATA, () -> RemovexattrOp.removexattr(namespace, fixture.as(ALICE), "vol", "/f",
                "user.a"));
    }

    @Test
    void createAndReplaceFlags() throws Exception {
        // XATTR_CREATE on an existing name is EEXIST; XATTR_REPLACE on a missing one ENODATA.
        set(ALICE, "user.a", "1", SetxattrOp.XATTR_CREATE);
        expectErrno(Errno.EEXIST, () -> set(ALICE, "user.a", "2", SetxattrOp.XATTR_CREATE));
        expectErrno(Errno.ENODATA, () -> set(ALICE, "user.b", "2", SetxattrOp.XATTR_REPLACE));
        set(ALICE, "user.a", "3", SetxattrOp.XATTR_REPLACE);
        assertThat(get(ALICE, "user.a")).isEqualTo("3");
    }

    @Test
    void layoutAttributesAreReadOnly() throws Exception {
        // xtreemfs.* expose the layout; setting or removing them is EPERM; other namespaces ENOTSUP.
        assertThat(get(ALICE, "xtreemfs.file_id")).isEqualTo(file.volumeId() + ":" + file.record().inode());
        assertThat(get(ALICE, "xtreemfs.volume_id")).isEqualTo(file.volumeId());
        assertThat(get(ALICE, "xtreemfs.locations")).startsWith("{\"version\":1,\"replicas\":[{")
                .contains(file.record().xlocs().getReplicas(0).getOsdUuids(0));
        expectErrno(Errno.ENODATA, () -> get(ALICE, "xtreemfs.unknown"));
        expectErrno(Errno.EPERM, () -> set(ALICE, "xtreemfs.file_id", "x", 0));
        expectErrno(Errno.EPERM, () -> RemovexattrOp.removexattr(namespace, fixture.as(ALICE), "vol", "/f",
                "xtreemfs.file_id"));
        expectErrno(Errno.ENOTSUP, () -> set(ALICE, "security.selinux", "x", 0));
        expectErrno(Errno.ENOTSUP, () -> set(ALICE, "trusted.x", "x", 0));
    }

    @Test
    void permissionsAndLimits() throws Exception {
        // Setting needs write access, reading user.* needs read access; oversized values are E2BIG.
        set(ALICE, "user.a", "1", 0);
        expectErrno(Errno.EACCES, () -> set(BOB, "user.a", "2", 0));
        SetattrOp.setattr(namespace, fixture.as(ALICE), "vol", "/f", Stat.newBuilder().setMode(0600).build(), 1);
        expectErrno(Errno.EACCES, () -> get(BOB, "user.a"));
        assertThat(get(ROOT, "user.a")).isEqualTo("1");
        expectErrno(SetxattrOp.E2BIG, () -> set(ALICE, "user.big", "x".repeat(SetxattrOp.XATTR_VALUE_BYTES_MAX + 1),
                0));
        expectErrno(Errno.ERANGE, () -> set(ALICE, "user." + "n".repeat(300), "x", 0));
    }

    @Test
    void attributesGoAwayWithTheFile() throws Exception {
        // Unlinking the last link deletes the inode's attributes from the store.
        set(ALICE, "user.a", "1", 0);
        UnlinkOp.unlink(namespace, fixture.as(ALICE), "vol", "/f");
        assertThat(namespace.xattrNames(file.volumeId(), file.record().inode())).isEmpty();
    }
}
