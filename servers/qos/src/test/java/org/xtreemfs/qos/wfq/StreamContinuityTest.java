package org.xtreemfs.qos.wfq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;

class StreamContinuityTest {
    @Test
    void aRequestContinuesOnlyWhereTheSameStreamsPreviousOneEnded() {
        StreamContinuity continuity = new StreamContinuity(8);
        assertThat(continuity.continues("a", 0, 100)).isFalse();  // nothing known yet
        assertThat(continuity.continues("a", 100, 50)).isTrue();
        assertThat(continuity.continues("b", 150, 10)).isFalse();  // another stream's end does not count
        assertThat(continuity.continues("a", 150, 10)).isTrue();
        assertThat(continuity.continues("a", 0, 10)).isFalse();  // a jump back
        assertThat(continuity.continues("a", 20, 10)).isFalse();  // a gap
    }

    @Test
    void theLeastRecentlyUsedStreamIsForgottenAtTheBound() {
        StreamContinuity continuity = new StreamContinuity(2);
        continuity.continues("a", 0, 10);
        continuity.continues("b", 0, 10);
        continuity.continues("a", 10, 10);  // a is now the most recently used
        continuity.continues("c", 0, 10);  // forgets b
        assertThat(continuity.size()).isEqualTo(2);
        assertThat(continuity.continues("a", 20, 10)).isTrue();
        assertThat(continuity.continues("b", 10, 10)).isFalse();
        assertThatThrownBy(() -> new StreamContinuity(0)).hasMessageContaining("streamsMax");
    }

    @Test
    void byteChargedOsdsAddThePositioningToARequestThatBreaksItsStreamAndIoChargedOnesDoNot() {
        ShareRule sequential = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        long positioning = ShareRule.bytesPerRandomIo(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL));
        assertThat(sequential.chargedBytes(131_072, true)).isEqualTo(131_072);
        assertThat(sequential.chargedBytes(4096, false)).isEqualTo(4096 + positioning);
        ShareRule random = ShareRule.forOsd(OsdProfiles.hdd7200(OsdUsageType.RANDOM));
        assertThat(random.chargedBytes(4096, false)).isEqualTo(4096);
        assertThat(random.costOf(random.chargedBytes(4096, false))).isEqualTo(1);
        assertThat(new CostRule.Bytes().chargedBytes(4096, false)).isEqualTo(4096);
        assertThatThrownBy(() -> new CostRule.Bytes(-1)).hasMessageContaining("positioningBytes");
    }
}
