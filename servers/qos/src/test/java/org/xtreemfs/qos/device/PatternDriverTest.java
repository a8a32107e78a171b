package org.xtreemfs.qos.device;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PatternDriverTest {
    private static final CalibrationPattern QUICK = CalibrationPattern.quick();

    @Test
    void theDerivationIsDeterministic() {
        // Proves the same model and pattern always give the same figures (no clock, no hidden randomness).
        CalibrationResult first = PatternDriver.derive(HddModel.desktop7200Rpm(), QUICK);
        CalibrationResult second = PatternDriver.derive(HddModel.desktop7200Rpm(), QUICK);
        assertThat(second.requestsPerSecondByPhase()).isEqualTo(first.requestsPerSecondByPhase());
        assertThat(second.sequentialBytesPerSecond()).containsExactly(first.sequentialBytesPerSecond());
    }

    @Test
    void ssdRandomIopsAreTheChannelsOverTheServiceTime() {
        // Proves the driver keeps queue depth 32 busy: 8 channels each serving a 4 KiB read in latency + transfer.
        SsdModel ssd = SsdModel.sata();
        CalibrationResult result = PatternDriver.derive(ssd, QUICK);
        double serviceSeconds = (ssd.readLatencyNanos() + 4096 * 1e9 * ssd.channelCount() / ssd.readBytesPerSecond())
                / 1e9;
        double expectedIops = ssd.channelCount() / serviceSeconds;
        assertThat(result.requestsPerSecondByPhase().get("random-read-4KiB")).isBetween(0.99 * expectedIops,
                1.01 * expectedIops);
        assertThat(result.randomIops()).isLessThanOrEqualTo((long) expectedIops);
    }

    @Test
    void aLoneHddStreamRunsAtItsZonesMediaRateAndSharedStreamsPayForSeeks() {
        // Proves the sequential phases: one stream close to the media rate where its file lies, two far below.
        HddModel hdd = HddModel.desktop7200Rpm();
        CalibrationResult result = PatternDriver.derive(hdd, QUICK);
        long region = DeviceLayout.regionStartBytes(CalibrationPattern.fileId(0), hdd.capacityBytes());
        double mediaBytesPerSecond = hdd.transferBytesPerSecond(region);
        double perRequestNanos = hdd.commandOverheadNanos() + CalibrationPattern.OBJECT_SIZE_BYTES * 1e9
                / mediaBytesPerSecond;
        double writeOneStream = result.requestsPerSecondByPhase().get("sequential-write-1");
        assertThat(writeOneStream).isBetween(0.9e9 / perRequestNanos, 1.01e9 / perRequestNanos);
        assertThat(result.sequentialBytesPerSecond()[1]).isLessThan(result.sequentialBytesPerSecond()[0] / 10);
    }

    @Test
    void aSlowerModelDeliversProportionallyLess() {
        // Proves slowedBy scales the derived figures, which the OSD's slowed emulations rely on.
        CalibrationResult normal = PatternDriver.derive(SsdModel.sata(), QUICK);
        CalibrationResult slow = PatternDriver.derive(SsdModel.sata().slowedBy(8), QUICK);
        assertThat((double) slow.randomIops()).isBetween(normal.randomIops() / 8.0 * 0.98,
                normal.randomIops() / 8.0 * 1.02);
        assertThat((double) slow.sequentialBytesPerSecond()[4]).isBetween(
                normal.sequentialBytesPerSecond()[4] / 8.0 * 0.98, normal.sequentialBytesPerSecond()[4] / 8.0 * 1.02);
    }
}
