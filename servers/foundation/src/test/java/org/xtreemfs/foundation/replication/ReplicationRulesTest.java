package org.xtreemfs.foundation.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.ReadRouting;

class ReplicationRulesTest {
    // Every policy's name maps to its value and back; absent means pattern.
    @Test
    void readRoutingNamesRoundTrip() {
        for (String name : new String[] {"pattern", "pattern-no-stealing", "round-robin"}) {
            assertThat(ReplicationRules.readRoutingName(ReplicationRules.readRoutingNamed(name))).isEqualTo(name);
        }
        assertThat(ReplicationRules.readRoutingNamed(" Pattern-No-Stealing "))
                .isEqualTo(ReadRouting.READ_ROUTING_PATTERN_NO_STEALING);
        assertThat(ReplicationRules.readRouting(ReadRouting.READ_ROUTING_UNSPECIFIED))
                .isEqualTo(ReadRouting.READ_ROUTING_PATTERN);
        assertThatThrownBy(() -> ReplicationRules.readRoutingNamed("sideways")).hasMessageContaining("\"sideways\"")
                .hasMessageContaining("pattern-no-stealing").hasMessageContaining("round-robin");
    }

    // The one rule both clients follow: pattern routes by pattern and steals, pattern-no-stealing only routes by
    // pattern, round-robin does neither.
    @Test
    void onlyPatternSteals() {
        assertThat(ReplicationRules.routesByPattern(ReadRouting.READ_ROUTING_PATTERN)).isTrue();
        assertThat(ReplicationRules.steals(ReadRouting.READ_ROUTING_PATTERN)).isTrue();
        assertThat(ReplicationRules.routesByPattern(ReadRouting.READ_ROUTING_UNSPECIFIED)).isTrue();
        assertThat(ReplicationRules.steals(ReadRouting.READ_ROUTING_UNSPECIFIED)).isTrue();
        assertThat(ReplicationRules.routesByPattern(ReadRouting.READ_ROUTING_PATTERN_NO_STEALING)).isTrue();
        assertThat(ReplicationRules.steals(ReadRouting.READ_ROUTING_PATTERN_NO_STEALING)).isFalse();
        assertThat(ReplicationRules.routesByPattern(ReadRouting.READ_ROUTING_ROUND_ROBIN)).isFalse();
        assertThat(ReplicationRules.steals(ReadRouting.READ_ROUTING_ROUND_ROBIN)).isFalse();
    }
}
