package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.tools.MkfsMain;
import org.xtreemfs.client.tools.RmfsMain;
import org.xtreemfs.client.tools.XtfsutilMain;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.Units;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * Reservation propagation on real servers: the signed XCaps a Java client holds, and sends with every OSD
 * request, carry the volume's per-OSD share of its admitted placement, and an online change
 * (xtfsutil --set-reservation) reaches them within the stated delay: a client renews an XCap on use once
 * less than min(renew margin, half its lifetime) is left, so every XCap in use was issued at most
 * {@code timeoutMs - min(renewMarginMs, timeoutMs / 2)} ago (servers/mrc/README.md, "Reservation shares in
 * capabilities"). The MRC's capability timeout is short here (2 s, so the delay is 1 s).
 */
class ReservationPropagationTest {
    private static final long CAPABILITY_TIMEOUT_MS = 2_000;
    /** The client's default renew margin (60 s) exceeds half the lifetime, so half the lifetime applies. */
    private static final long STATED_DELAY_MS = CAPABILITY_TIMEOUT_MS - CAPABILITY_TIMEOUT_MS / 2;
    private static TestCluster cluster;
    private static Client client;
    /** Volumes this test made; removed after it, so every test finds the sequential OSD empty. */
    private final List<String> volumes = new java.util.ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        // The sequential OSD is an SSD: both tests place a sequential volume on it (in either order), and the
        // hdd7200 profile admits at two streams only 30.3 MiB/s, a third of one stream, less than the two reserve;
        // the SSD profile's running minimum stays at its one-stream figure.
        cluster = TestCluster.start(List.of(Map.of("osd.usage.type", "sequential", "osd.device.class", "ssd"),
                Map.of("osd.usage.type", "best_effort", "osd.device.class", "ssd")),
                Map.of("mrc.capability.timeoutMs", Long.toString(CAPABILITY_TIMEOUT_MS)));
        client = cluster.qosClient();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What one sequential stream may reserve on the sequential OSD, as the ledger reports it. */
    private static long oneStreamBytesPerSecond() throws Exception {
        String sequentialUuid = cluster.osdUuids().get(0);
        return client.qosStatus().getOsdsList().stream().filter(osd -> osd.getUuid().equals(sequentialUuid))
                .findFirst().map(OsdQosState::getLimitThroughputBytesPerSecond).orElseThrow();
    }

    @AfterEach
    void removeVolumes() {
        // A second sequential volume on the HDD OSD would lower what one stream may reserve (the derived
        // hdd7200 curve falls steeply with the stream count), so each test starts from an empty ledger.
        for (String volume : volumes) {
            ToolRun removed = ToolRun.of(new RmfsMain(), cluster.dirUrl() + "/" + volume);
            assertThat(removed.exitCode()).as(removed.err()).isZero();
        }
    }

    private void mkfs(String volume, String... options) {
        String[] arguments = java.util.Arrays.copyOf(options, options.length + 1);
        arguments[options.length] = cluster.dirUrl() + "/" + volume;
        ToolRun made = ToolRun.of(new MkfsMain(), arguments);
        assertThat(made.exitCode()).as(made.err()).isZero();
        volumes.add(volume);
    }

    private static Optional<VolumeShare> placedShare(Volume volume) throws Exception {
        QosPlacement placement = volume.fileLayout("/").getPlacement();
        assertThat(placement.getOsdUuidsCount()).isPositive();
        return Optional.of(new VolumeShare(ReservationType.SEQUENTIAL, placement.getShareThroughputBytesPerSecond(),
                0));
    }

    private static Optional<VolumeShare> heldShare(FileHandle file) {
        XCap capability = file.credentials().getXcap();
        return QosWire.share(capability);
    }

    // Writes to a reserved volume go out with XCaps carrying the placement's per-OSD share; a volume
    // without reservation gets none. The OSD accepts them (the share is signed with the rest).
    @Test
    void capabilitiesOfAReservedVolumeCarryItsShare() throws Exception {
        mkfs("reserved", "--qos", "sequential", "--capacity", "1GiB", "--throughput",
                Units.formatBytesPerSecond(oneStreamBytesPerSecond() / 8));
        mkfs("plain");
        Volume reserved = client.openVolume("reserved");
        try (FileHandle file = reserved.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            assertThat(heldShare(file)).isEqualTo(placedShare(reserved));
            assertThat(heldShare(file).orElseThrow().throughputBytesPerSecond())
                    .isEqualTo(oneStreamBytesPerSecond() / 8);
            file.write(0, new byte[] {1, 2, 3});
            assertThat(file.read(0, 10)).containsExactly(1, 2, 3);
        }
        try (FileHandle file = client.openVolume("plain").open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, new byte[] {4});
            assertThat(file.credentials().getXcap().hasQosShare()).isFalse();
        }
    }

    // A file stays open across an online change: its XCap keeps the old (signed) share until renewal, and
    // any write issued the stated delay after the change goes out with an XCap carrying the new share.
    @Test
    void anOnlineChangeReachesTheXCapsInUseWithinTheStatedDelay() throws Exception {
        long oneStream = oneStreamBytesPerSecond();
        mkfs("live", "--qos", "sequential", "--capacity", "1GiB", "--throughput",
                Units.formatBytesPerSecond(oneStream / 8));
        Volume volume = client.openVolume("live");
        try (FileHandle file = volume.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, new byte[] {1});
            Optional<VolumeShare> before = heldShare(file);
            assertThat(before).isEqualTo(placedShare(volume));

            ToolRun changed = ToolRun.of(new XtfsutilMain(), "--set-reservation", "--throughput",
                    Units.formatBytesPerSecond(oneStream / 4), cluster.dirUrl() + "/live");
            assertThat(changed.exitCode()).as(changed.err()).isZero();
            long changedAtMs = System.currentTimeMillis();
            volume.invalidateCache();
            Optional<VolumeShare> after = placedShare(volume);
            assertThat(after).isNotEqualTo(before);
            assertThat(after.orElseThrow().throughputBytesPerSecond()).isEqualTo(oneStream / 4);
            // The XCap issued before the change is signed with the old share; nothing rewrites it in place.
            assertThat(heldShare(file)).isEqualTo(before);

            // Keep writing; the first write at or after the stated delay must carry the new share. Exact, not
            // a timing guess: the XCap held at the change was signed and received before it, so it expires by
            // changedAtMs + timeout and the client renews it on any use after (expiry + receipt) / 2, which is
            // at most changedAtMs + timeout / 2 (the 50 ms only absorb clock granularity); every XCap this
            // thread obtains after the change is signed after the ledger committed it.
            long deadlineMs = changedAtMs + STATED_DELAY_MS + 50;
            long offset = 1;
            while (System.currentTimeMillis() < deadlineMs) {
                file.write(offset++, new byte[] {2});
                Thread.sleep(20);
            }
            file.write(offset++, new byte[] {3});
            assertThat(heldShare(file)).as("XCap in use %d ms after the change", System.currentTimeMillis()
                    - changedAtMs).isEqualTo(after);
            assertThat(file.read(offset - 1, 1)).containsExactly(3);
        }
    }
}
