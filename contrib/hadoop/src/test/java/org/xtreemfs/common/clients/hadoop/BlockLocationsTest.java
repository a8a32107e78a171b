package org.xtreemfs.common.clients.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.List;
import org.apache.hadoop.fs.BlockLocation;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.striping.StripeLayout;

class BlockLocationsTest {
    private static final List<InetSocketAddress> OSDS = List.of(InetSocketAddress.createUnresolved("a", 1),
            InetSocketAddress.createUnresolved("b", 2), InetSocketAddress.createUnresolved("c", 3));

    @Test
    void aBlockOfOneObjectLivesOnThatObjectsOsd() throws Exception {
        // 10 objects of 4 bytes over 3 OSDs, one object per block: block n on OSD n mod 3.
        BlockLocation[] blocks = BlockLocations.of(new StripeLayout(4096, 3), OSDS, 4096, 10 * 4096, 0, 10 * 4096);
        assertThat(blocks).hasSize(10);
        for (int block = 0; block < 10; block++) {
            assertThat(blocks[block].getOffset()).isEqualTo(block * 4096L);
            assertThat(blocks[block].getLength()).isEqualTo(4096);
            assertThat(blocks[block].getHosts()).containsExactly(OSDS.get(block % 3).getHostString());
            assertThat(blocks[block].getNames()).containsExactly(OSDS.get(block % 3).getHostString() + ":"
                    + OSDS.get(block % 3).getPort());
        }
    }

    @Test
    void aBlockSpanningTheStripeLivesOnEveryOsdOnce() throws Exception {
        BlockLocation[] blocks = BlockLocations.of(new StripeLayout(4096, 3), OSDS, 8 * 4096, 10 * 4096, 0, 10 * 4096);
        assertThat(blocks).hasSize(2);
        assertThat(blocks[0].getHosts()).containsExactly("a", "b", "c");
        // The last block holds objects 8 and 9 only (positions 2 and 0), and is cut at the end of the file.
        assertThat(blocks[1].getOffset()).isEqualTo(8 * 4096L);
        assertThat(blocks[1].getLength()).isEqualTo(2 * 4096L);
        assertThat(blocks[1].getHosts()).containsExactly("c", "a");
    }

    @Test
    void onlyTheBlocksOverlappingTheRangeAreReturned() throws Exception {
        BlockLocation[] blocks = BlockLocations.of(new StripeLayout(4096, 3), OSDS, 4096, 10 * 4096 + 100,
                2 * 4096 + 5, 4096);
        assertThat(blocks).extracting(BlockLocation::getOffset).containsExactly(2 * 4096L, 3 * 4096L);
        BlockLocation[] last = BlockLocations.of(new StripeLayout(4096, 3), OSDS, 4096, 10 * 4096 + 100,
                10 * 4096, 1 << 20);
        assertThat(last).hasSize(1);
        assertThat(last[0].getLength()).isEqualTo(100);
        assertThat(last[0].getHosts()).containsExactly("b");
    }

    @Test
    void nothingAtOrPastTheEnd() {
        assertThat(BlockLocations.of(new StripeLayout(4096, 3), OSDS, 4096, 4096, 4096, 10)).isEmpty();
        assertThat(BlockLocations.of(new StripeLayout(4096, 3), OSDS, 4096, 0, 0, 10)).isEmpty();
    }

    @Test
    void aBlockSizeMustBePositive() {
        assertThatThrownBy(() -> BlockLocations.of(new StripeLayout(4096, 3), OSDS, 0, 10, 0, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 0");
    }
}
