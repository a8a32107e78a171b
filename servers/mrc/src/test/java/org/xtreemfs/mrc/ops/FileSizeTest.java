package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectInvalidArgs;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.Namespace;

/** UpdateFileSizeOp.updateFileSize and FtruncateOp.beginTruncate: the truncate-epoch rules of file sizes. */
class FileSizeTest {
    private final NamespaceFixture fixture = new NamespaceFixture();
    private final Namespace namespace = fixture.namespace;
    private String volumeId;
    private long inode;

    @BeforeEach
    void createFile() throws Exception {
        fixture.createVolume("vol");
        OpenResult file = fixture.open(fixture.as(ROOT), "vol", "/f", NamespaceFixture.CREAT | NamespaceFixture.RDWR,
                0644);
        volumeId = file.volumeId();
        inode = file.record().inode();
    }

    private boolean update(long size, int epoch) throws Exception {
        return UpdateFileSizeOp.updateFileSize(namespace, fixture.as(ROOT), volumeId, inode, size, epoch, false);
    }

    private Stat stat() throws Exception {
        return GetattrOp.getattr(namespace, fixture.as(ROOT), "vol", "/f");
    }

    @Test
    void sameEpochOnlyGrows() throws Exception {
        // Within one epoch the size never shrinks: late, smaller reports are ignored.
        assertThat(update(100, 0)).isTrue();
        assertThat(update(50, 0)).isFalse();
        assertThat(stat().getSizeBytes()).isEqualTo(100);
        assertThat(stat().getBlocks()).isEqualTo(1);
    }

    @Test
    void truncateEpochRule() throws Exception {
        // After a truncate (epoch 1) a report of epoch 0 is ignored; a newer epoch sets the size outright.
        update(1000, 0);
        int epoch = FtruncateOp.beginTruncate(namespace, volumeId, inode);
        assertThat(epoch).isEqualTo(1);
        assertThat(update(5000, 0)).isFalse();
        assertThat(stat().getSizeBytes()).isEqualTo(1000);
        assertThat(update(10, 1)).isTrue();
        assertThat(stat().getSizeBytes()).isEqualTo(10);
        assertThat(stat().getTruncateEpoch()).isEqualTo(1);
        assertThat(update(5, 1)).isFalse();
        assertThat(update(20, 1)).isTrue();
        assertThat(stat().getSizeBytes()).isEqualTo(20);
    }

    @Test
    void pathTruncateSetsSizeAndEpochAtOnce() throws Exception {
        // SETATTR_SIZE truncates immediately under a new epoch; older reports cannot undo it.
        update(1000, 0);
        Stat truncated = SetattrOp.setattr(namespace, fixture.as(ROOT), "vol", "/f",
                Stat.newBuilder().setSizeBytes(3).build(), 8);
        assertThat(truncated.getSizeBytes()).isEqualTo(3);
        assertThat(truncated.getTruncateEpoch()).isEqualTo(1);
        assertThat(update(1000, 0)).isFalse();
        assertThat(stat().getSizeBytes()).isEqualTo(3);
    }

    @Test
    void epochsNeverIssuedAreRejected() {
        // A report claiming an epoch the MRC never issued is INVALID_ARGS.
        assertThat(expectInvalidArgs(() -> update(1, 7))).contains("never issued");
    }
}
