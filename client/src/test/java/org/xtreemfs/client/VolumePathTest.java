package org.xtreemfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VolumePathTest {
    // Equivalent spellings of a path normalise to one absolute form without trailing slash.
    @Test
    void normalisesEquivalentSpellings() {
        assertThat(VolumePath.normalize("a/b")).isEqualTo("/a/b");
        assertThat(VolumePath.normalize("//a///b/")).isEqualTo("/a/b");
        assertThat(VolumePath.normalize("/a/./c/../b")).isEqualTo("/a/b");
        assertThat(VolumePath.normalize("")).isEqualTo("/");
        assertThat(VolumePath.normalize("/")).isEqualTo("/");
    }

    // '..' above the root and NUL bytes are refused, naming the path.
    @Test
    void refusesEscapesAndNul() {
        assertThatThrownBy(() -> VolumePath.normalize("/a/../..")).hasMessageContaining("'/a/../..'");
        assertThatThrownBy(() -> VolumePath.normalize("a\0b")).hasMessageContaining("NUL");
    }

    // Parent and subtree relations hold for normalised paths, and a sibling with a common prefix is not below.
    @Test
    void parentAndSubtree() {
        assertThat(VolumePath.parent("/a/b")).isEqualTo("/a");
        assertThat(VolumePath.parent("/a")).isEqualTo("/");
        assertThat(VolumePath.parent("/")).isEqualTo("/");
        assertThat(VolumePath.isSameOrBelow("/a/b", "/a")).isTrue();
        assertThat(VolumePath.isSameOrBelow("/ab", "/a")).isFalse();
        assertThat(VolumePath.isSameOrBelow("/x", "/")).isTrue();
    }
}
