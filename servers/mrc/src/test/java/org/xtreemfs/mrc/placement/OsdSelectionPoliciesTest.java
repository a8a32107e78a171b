package org.xtreemfs.mrc.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.OsdUsageType;

class OsdSelectionPoliciesTest {
    private static OsdCandidate osd(String uuid, OsdUsageType type) {
        return new OsdCandidate(uuid, type, 1L << 30, 1L << 40, 0);
    }

    private static final List<OsdCandidate> ONLINE = List.of(osd("seq", OsdUsageType.OSD_SEQUENTIAL),
            osd("rand", OsdUsageType.OSD_RANDOM),
            osd("be", OsdUsageType.OSD_BEST_EFFORT), osd("untyped", OsdUsageType.OSD_USAGE_TYPE_UNSPECIFIED));

    private static List<String> uuids(List<OsdCandidate> candidates) {
        return candidates.stream().map(OsdCandidate::uuid).toList();
    }

    @Test
    void byDefaultBestEffortVolumesUseOnlyBestEffortAndUntypedOsds() {
        OsdSelectionPolicies policies = OsdSelectionPolicies.standard(0, false);

        assertThat(uuids(policies.bestEffortCandidates(ONLINE))).containsExactly("be", "untyped");
    }

    @Test
    void withOnlyBestEffortAndUntypedOsdsOnlineEveryOneIsACandidateInItsOrder() {
        List<OsdCandidate> untypedFirst = List.of(ONLINE.get(3), ONLINE.get(2));

        assertThat(uuids(OsdSelectionPolicies.standard(0, false).bestEffortCandidates(untypedFirst)))
                .containsExactly("untyped", "be");
    }

    @Test
    void bestEffortOnTypedOsdsLetsBestEffortVolumesUseEveryOnlineOsd() {
        OsdSelectionPolicies policies = OsdSelectionPolicies.standard(0, true);

        assertThat(uuids(policies.bestEffortCandidates(ONLINE))).containsExactly("seq", "rand", "be", "untyped");
    }

    @Test
    void withOnlyTypedOsdsTheDefaultLeavesNoCandidateAndTheOptionLetsThePolicyPlaceAStripe()
            throws NotEnoughOsdsException {
        List<OsdCandidate> typedOnly = ONLINE.subList(0, 2);

        assertThat(OsdSelectionPolicies.standard(0, false).bestEffortCandidates(typedOnly)).isEmpty();
        OsdSelectionPolicies policies = OsdSelectionPolicies.standard(0, true);
        assertThat(policies.find("").orElseThrow().select(policies.bestEffortCandidates(typedOnly), 2, 1))
                .containsExactlyInAnyOrder("seq", "rand");
    }
}
