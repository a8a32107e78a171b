package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogIndexTest {
    private static final String FILE = "v:1";

    @Test
    void aNewerWriteSplitsAndCutsOlderExtentsAndReportsExactlyTheBytesItReplaced() {
        // Proves overlapping writes keep extents disjoint, with addresses shifted for cut-off heads.
        LogIndex index = new LogIndex();
        List<long[]> dead = new ArrayList<>();
        index.put(FILE, 0, 0, 100, 1000, (address, length) -> dead.add(new long[] {address, length}));
        index.put(FILE, 0, 40, 20, 5000, (address, length) -> dead.add(new long[] {address, length}));
        assertThat(index.object(FILE, 0).extents()).containsExactly(new LogIndex.Extent(0, 40, 1000),
                new LogIndex.Extent(40, 20, 5000), new LogIndex.Extent(60, 40, 1060));
        assertThat(dead).containsExactly(new long[] {1040, 20});
        dead.clear();
        index.put(FILE, 0, 30, 50, 9000, (address, length) -> dead.add(new long[] {address, length}));
        assertThat(index.object(FILE, 0).extents()).containsExactly(new LogIndex.Extent(0, 30, 1000),
                new LogIndex.Extent(30, 50, 9000), new LogIndex.Extent(80, 20, 1080));
        assertThat(dead.stream().mapToLong(range -> range[1]).sum()).isEqualTo(50);
        assertThat(index.object(FILE, 0).lengthBytes).isEqualTo(100);
    }

    @Test
    void settingALengthCutsBeyondItAndAnExtensionIsAHole() {
        LogIndex index = new LogIndex();
        long[] deadBytes = {0};
        index.put(FILE, 3, 0, 100, 0, (address, length) -> deadBytes[0] += length);
        index.setLength(FILE, 3, 30, (address, length) -> deadBytes[0] += length);
        assertThat(index.object(FILE, 3).extents()).containsExactly(new LogIndex.Extent(0, 30, 0));
        assertThat(deadBytes[0]).isEqualTo(70);
        index.setLength(FILE, 3, 500, (address, length) -> deadBytes[0] += length);
        assertThat(index.object(FILE, 3).lengthBytes).isEqualTo(500);
        assertThat(index.object(FILE, 3).extents()).hasSize(1);
        index.removeFile(FILE, (address, length) -> deadBytes[0] += length);
        assertThat(deadBytes[0]).isEqualTo(100);
        assertThat(index.fileIds()).isEmpty();
    }

    @Test
    void entriesSurviveTheirPersistedForm() {
        LogIndex index = new LogIndex();
        index.put(FILE, 0, 10, 5, 77L << 40 | 12345, (address, length) -> { });
        index.put(FILE, 0, 100, 7, 3, (address, length) -> { });
        LogIndex.ObjectEntry decoded = LogIndex.decode(LogIndex.encode(index.object(FILE, 0)));
        assertThat(decoded.lengthBytes).isEqualTo(107);
        assertThat(decoded.extents()).isEqualTo(index.object(FILE, 0).extents());
    }
}
