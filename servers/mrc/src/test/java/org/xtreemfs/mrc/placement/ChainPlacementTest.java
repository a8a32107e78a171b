package org.xtreemfs.mrc.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.OsdUsageType;

class ChainPlacementTest {
    private final SpaceAndLoadPolicy policy = new SpaceAndLoadPolicy(1L << 30);

    private static OsdCandidate osd(String uuid, String host) {
        return new OsdCandidate(uuid, OsdUsageType.OSD_BEST_EFFORT, 2L << 30, 1L << 40, 0, host);
    }

    // N replicas of width w: N lists of w OSDs, all N*w distinct, for many seeds.
    @Test
    void replicasAreDistinctOsds() throws Exception {
        List<OsdCandidate> candidates = new ArrayList<>();
        for (int index = 0; index < 7; index++) {
            candidates.add(osd("osd" + index, "h" + index));
        }
        for (long seed = 0; seed < 50; seed++) {
            List<List<String>> replicas = ChainPlacement.select(policy, candidates, 2, 3, seed);
            assertThat(replicas).hasSize(3).allSatisfy(stripe -> assertThat(stripe).hasSize(2));
            assertThat(replicas.stream().flatMap(List::stream).collect(Collectors.toSet())).hasSize(6);
        }
    }

    // Two hosts with three OSDs each, chains of 2: every chain spans both hosts, whichever OSDs the policy picks
    // (picks on one host are swapped for an unpicked OSD on the other).
    @Test
    void eachChainSpansDistinctHostsWhereThereAreSeveral() throws Exception {
        List<OsdCandidate> candidates = List.of(osd("a1", "A"), osd("a2", "A"), osd("a3", "A"), osd("b1", "B"),
                osd("b2", "B"), osd("b3", "B"));
        Map<String, String> hostOf = candidates.stream().collect(Collectors.toMap(OsdCandidate::uuid,
                OsdCandidate::host));
        for (long seed = 0; seed < 30; seed++) {
            List<List<String>> replicas = ChainPlacement.select(policy, candidates, 2, 2, seed);
            for (int position = 0; position < 2; position++) {
                Set<String> hosts = new HashSet<>();
                for (List<String> replica : replicas) {
                    hosts.add(hostOf.get(replica.get(position)));
                }
                assertThat(hosts).as("hosts of chain %d, seed %d: %s", position, seed, replicas).hasSize(2);
            }
            assertThat(replicas.stream().flatMap(List::stream).collect(Collectors.toSet())).hasSize(4);
        }
    }

    // One host: the chain still gets distinct OSDs (the host rule is a preference, distinct OSDs a must).
    @Test
    void oneHostStillGivesDistinctOsds() throws Exception {
        List<List<String>> replicas = ChainPlacement.select(policy, List.of(osd("a", "h"), osd("b", "h"),
                osd("c", "h")), 1, 3, 5);
        assertThat(replicas.stream().flatMap(List::stream).collect(Collectors.toSet())).hasSize(3);
    }

    // Too few OSDs: the error names the replicas, the width, the OSDs needed and those found.
    @Test
    void tooFewOsdsNamesTheNumbers() {
        assertThatThrownBy(() -> ChainPlacement.select(policy, List.of(osd("a", "h"), osd("b", "h")), 1, 3, 0))
                .isInstanceOf(NotEnoughOsdsException.class)
                .hasMessageContaining("3 replicas of stripe width 1").hasMessageContaining("need 3 distinct OSDs")
                .hasMessageContaining("found 2 suitable of 2 online");
    }

    // One replica is exactly the policy's own choice.
    @Test
    void oneReplicaIsThePolicysStripe() throws Exception {
        List<OsdCandidate> candidates = List.of(osd("a", ""), osd("b", ""), osd("c", ""));
        assertThat(ChainPlacement.select(policy, candidates, 2, 1, 9)).containsExactly(policy.select(candidates, 2, 9));
    }
}
