package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FlowSpecTest {

    @Test
    void specsAreEqualExactlyWhenEveryFieldIs() {
        // Proves the written-out equals keeps the record's meaning: FairPolicy reconfigures a flow when it differs.
        FlowSpec spec = new FlowSpec(FlowClass.RESERVED, 100, 2, 300);
        assertThat(spec).isEqualTo(new FlowSpec(FlowClass.RESERVED, 100, 2, 300))
                .hasSameHashCodeAs(new FlowSpec(FlowClass.RESERVED, 100, 2, 300));
        assertThat(spec).isNotEqualTo(new FlowSpec(FlowClass.RESERVED, 101, 2, 300))
                .isNotEqualTo(new FlowSpec(FlowClass.RESERVED, 100, 3, 300))
                .isNotEqualTo(new FlowSpec(FlowClass.RESERVED, 100, 2, 0))
                .isNotEqualTo(FlowSpec.bestEffort(2))
                .isNotEqualTo(null);
        assertThat(FlowSpec.bestEffort(1)).isNotEqualTo(FlowSpec.cold(1));
    }

    @Test
    void aLimitItAlreadyHasReturnsTheSameSpec() {
        // Proves no allocation per request for the common case (the share's limit is the spec's).
        FlowSpec spec = FlowSpec.bestEffort(1);
        assertThat(spec.withLimit(0)).isSameAs(spec);
        assertThat(spec.withLimit(500)).isEqualTo(new FlowSpec(FlowClass.BEST_EFFORT, 0, 1, 500));
    }
}
