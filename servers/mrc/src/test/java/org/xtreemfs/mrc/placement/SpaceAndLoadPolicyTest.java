package org.xtreemfs.mrc.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.OsdUsageType;

class SpaceAndLoadPolicyTest {
    private static OsdCandidate osd(String uuid, long freeBytes, int loadPercent) {
        return new OsdCandidate(uuid, OsdUsageType.OSD_BEST_EFFORT, freeBytes, 1L << 40, loadPercent);
    }

    private final SpaceAndLoadPolicy policy = new SpaceAndLoadPolicy(1L << 30);

    @Test
    void choosesDistinctOsdsForTheWholeStripe() throws Exception {
        // A width-3 stripe over 4 OSDs gets 3 distinct uuids.
        List<String> chosen = policy.select(List.of(osd("a", 2L << 30, 0), osd("b", 2L << 30, 0),
                osd("c", 2L << 30, 0), osd("d", 2L << 30, 0)), 3, 7);
        assertThat(chosen).hasSize(3).doesNotHaveDuplicates();
    }

    @Test
    void skipsFullOsdsButAcceptsOsdsThatReportNoSpaceYet() throws Exception {
        // An OSD below the free-space minimum is never chosen; one without a space report is.
        OsdCandidate unreported = new OsdCandidate("new", OsdUsageType.OSD_BEST_EFFORT, 0, 0, 0);
        for (long seed = 0; seed < 10; seed++) {
            assertThat(policy.select(List.of(osd("full", 1L << 20, 0), unreported), 1, seed)).containsExactly("new");
        }
    }

    @Test
    void prefersLessLoadedOsds() throws Exception {
        // With enough lightly loaded OSDs, a busy one is never chosen.
        List<OsdCandidate> candidates = List.of(osd("busy", 2L << 30, 90), osd("x", 2L << 30, 5),
                osd("y", 2L << 30, 8));
        for (long seed = 0; seed < 10; seed++) {
            assertThat(policy.select(candidates, 2, seed)).containsExactlyInAnyOrder("x", "y");
        }
    }

    @Test
    void spreadsFilesEvenlyOverEqualOsds() throws Exception {
        // 300 width-1 files over three equal OSDs land 100 on each.
        List<OsdCandidate> candidates = List.of(osd("a", 2L << 30, 0), osd("b", 2L << 30, 0), osd("c", 2L << 30, 0));
        Map<String, Integer> counts = new HashMap<>();
        for (long inode = 2; inode < 302; inode++) {
            counts.merge(policy.select(candidates, 1, inode).get(0), 1, Integer::sum);
        }
        assertThat(counts).containsOnly(Map.entry("a", 100), Map.entry("b", 100), Map.entry("c", 100));
    }

    @Test
    void tooFewOsdsNamesNeededAndAvailable() {
        // Asking for more OSDs than suitable ones fails with both numbers.
        NotEnoughOsdsException error = catchThrowableOfType(NotEnoughOsdsException.class,
                () -> policy.select(List.of(osd("a", 2L << 30, 0), osd("full", 0, 0)), 2, 1));
        assertThat(error.needed()).isEqualTo(2);
        assertThat(error.available()).isEqualTo(1);
        assertThat(error.getMessage()).contains("width of 2").contains("found 1 suitable of 2 online");
    }

    @Test
    void isDeterministic() throws Exception {
        // The same inputs give the same choice regardless of candidate order.
        List<OsdCandidate> candidates = List.of(osd("a", 2L << 30, 10), osd("b", 2L << 30, 12), osd("c", 2L << 30, 3));
        List<OsdCandidate> reversed = List.of(candidates.get(2), candidates.get(1), candidates.get(0));
        assertThat(policy.select(candidates, 2, 42)).isEqualTo(policy.select(reversed, 2, 42));
    }
}
