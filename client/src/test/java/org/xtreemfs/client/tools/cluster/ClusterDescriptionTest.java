package org.xtreemfs.client.tools.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.tools.ToolRunner;

class ClusterDescriptionTest {

    @Test
    void shortKeysBecomeOsdSettingsAndDottedKeysPassThrough() {
        OsdDescription osd = OsdDescription.parse(
                "name=seq,usage=sequential,device=hdd,emulation=hdd7200,osd.locks.leaseMs=6000", "osd0");
        assertThat(osd.name()).isEqualTo("seq");
        assertThat(osd.settings()).containsExactlyInAnyOrderEntriesOf(Map.of("osd.usage.type", "sequential",
                "osd.device.class", "hdd", "osd.device.emulation", "hdd7200", "osd.locks.leaseMs", "6000"));
        assertThat(osd.summary()).isEqualTo("sequential hdd (emulated hdd7200)");
    }

    @Test
    void anEmptySpecIsADefaultOsdWithTheDefaultName() {
        OsdDescription osd = OsdDescription.parse("", "osd3");
        assertThat(osd.name()).isEqualTo("osd3");
        assertThat(osd.settings()).isEmpty();
    }

    @Test
    void badSpecsNameTheBadPart() {
        assertThatThrownBy(() -> OsdDescription.parse("usage=random,colour=blue", "osd0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown key 'colour'");
        assertThatThrownBy(() -> OsdDescription.parse("usage", "osd0"))
                .hasMessageContaining("'usage' is not key=value");
        assertThatThrownBy(() -> OsdDescription.parse("name=../etc", "osd0")).hasMessageContaining("'../etc'");
        assertThatThrownBy(() -> OsdDescription.parse("name=mrc", "osd0")).hasMessageContaining("'mrc'");
    }

    @Test
    void twoOsdsWithOneNameAreRefused() {
        OsdDescription a = new OsdDescription("a", Map.of());
        assertThatThrownBy(() -> new ClusterDescription(List.of(a, a), Map.of(), Map.of(), false))
                .hasMessageContaining("two OSDs are named 'a'");
    }

    @Test
    void theCliRefusesBadValuesWithExitTwoAndNamesThem() {
        StringWriter err = new StringWriter();
        int exit = ToolRunner.execute(new ClusterMain(), new PrintWriter(new StringWriter()), new PrintWriter(err),
                "kill", "--state", "/nonexistent", "osd0", "--signal", "SEGV");
        assertThat(exit).isEqualTo(ToolRunner.EXIT_USAGE);
        assertThat(err.toString()).contains("'SEGV'");
    }

    @Test
    void theCliReportsAMissingClusterAsAFailureNotAStackTrace() {
        StringWriter err = new StringWriter();
        int exit = ToolRunner.execute(new ClusterMain(), new PrintWriter(new StringWriter()), new PrintWriter(err),
                "status", "--state", "/nonexistent-cluster-folder");
        assertThat(exit).isEqualTo(ToolRunner.EXIT_FAILED);
        assertThat(err.toString()).contains("no cluster in /nonexistent-cluster-folder").doesNotContain("Exception");
    }
}
