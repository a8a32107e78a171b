package org.xtreemfs.osd.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CleanVersionsTest {
    @Test
    void aFileIsReadableHereOnlyWhileEveryUpdateOfItIsAcknowledged() {
        CleanVersions versions = new CleanVersions();
        long stamp = versions.readStart("f");
        assertThat(stamp).isNotNegative();
        assertThat(versions.readValid("f", stamp)).isTrue();

        versions.applying("f");
        versions.applying("f");
        assertThat(versions.readStart("f")).as("dirty: two updates wait for the successor").isEqualTo(-1);
        assertThat(versions.readStart("g")).as("another file is clean").isNotNegative();
        assertThat(versions.dirtyFiles()).isEqualTo(1);
        versions.acknowledged("f");
        assertThat(versions.readStart("f")).isEqualTo(-1);
        versions.acknowledged("f");
        assertThat(versions.readStart("f")).isNotNegative();
        assertThat(versions.dirtyFiles()).isZero();
    }

    // The sequence lock: a read that overlapped an update of its file (even one acknowledged before the check) is
    // not valid, one that did not is.
    @Test
    void aReadOverlappingAnUpdateIsNotValid() {
        CleanVersions versions = new CleanVersions();
        long stamp = versions.readStart("f");
        versions.applying("f");
        versions.acknowledged("f");
        assertThat(versions.readValid("f", stamp)).isFalse();
        long later = versions.readStart("f");
        versions.applying("other");
        assertThat(versions.readValid("f", later)).isTrue();
        assertThat(versions.readValid("f", -1)).isFalse();
    }

    @Test
    void aFailedForwardKeepsTheFileDirtyAndAWithdrawnUpdateDoesNot() {
        CleanVersions versions = new CleanVersions();
        versions.applying("refused");
        versions.withdrawn("refused");
        assertThat(versions.readStart("refused")).isNotNegative();
        versions.applying("lost");
        versions.unacknowledged("lost");
        assertThat(versions.readStart("lost")).isEqualTo(-1);
        versions.applying("lost");
        versions.acknowledged("lost");
        assertThat(versions.readStart("lost")).as("a later acknowledgement does not repair a divergent copy")
                .isEqualTo(-1);
        assertThatThrownBy(() -> versions.acknowledged("never")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("never");
    }

    // Clean files beyond the bound are forgotten, but a forgotten file's last update still invalidates a read
    // that began before it; dirty files are never forgotten.
    @Test
    void forgettingCleanFilesNeverValidatesAnOverlappingRead() {
        CleanVersions versions = new CleanVersions(2);
        long stamp = versions.readStart("a");
        versions.applying("a");
        versions.acknowledged("a");
        versions.applying("dirty");
        versions.applying("b");
        versions.acknowledged("b");
        versions.applying("c");
        versions.acknowledged("c");
        assertThat(versions.readValid("a", stamp)).as("a was forgotten after an update newer than the read")
                .isFalse();
        assertThat(versions.readStart("dirty")).isEqualTo(-1);
        long fresh = versions.readStart("a");
        assertThat(versions.readValid("a", fresh)).isTrue();
    }
}
