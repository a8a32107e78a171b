package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;

/** The client keeps working with an open file whose XCaps live only one second (the MRC's minimum). */
class CapabilityRenewalTest {
    private static ClusterWithVolume fixture;
    private static Volume volume;

    @BeforeAll
    static void startCluster() throws Exception {
        fixture = ClusterWithVolume.start(1, Map.of("mrc.capability.timeoutMs", "1000"), "shortcaps", 1);
        volume = fixture.volume();
    }

    @AfterAll
    static void stopCluster() {
        if (fixture != null) {
            fixture.close();
        }
    }

    // Within the last half of its lifetime an XCap is renewed on use, before it expires: the write succeeds
    // and the handle holds a cap with a later expiry and the same truncate epoch.
    @Test
    void renewsBeforeExpiry() throws Exception {
        try (FileHandle file = volume.open("/renew", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            long firstExpiryMs = file.credentials().getXcap().getExpiresMs();
            int epoch = file.credentials().getXcap().getTruncateEpoch();
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                    .until(() -> firstExpiryMs - System.currentTimeMillis() < 350);
            file.write(0, new byte[] {1, 2, 3});
            assertThat(file.credentials().getXcap().getExpiresMs()).isGreaterThan(firstExpiryMs);
            assertThat(file.credentials().getXcap().getTruncateEpoch()).isEqualTo(epoch);
            assertThat(file.read(0, 10)).containsExactly(1, 2, 3);
        }
    }

    // A cap that already expired (the MRC refuses to renew it) is replaced by opening the file again, so
    // reads, writes, truncate and close (reporting the size) still work after the handle sat idle past the
    // expiry.
    @Test
    void recoversAfterExpiry() throws Exception {
        try (FileHandle file = volume.open("/idle", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
            file.write(0, new byte[] {7, 7, 7, 7});
            long expiryMs = file.credentials().getXcap().getExpiresMs();
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> System.currentTimeMillis() > expiryMs + 100);
            file.write(4, new byte[] {8});
            assertThat(file.credentials().getXcap().getExpiresMs()).isGreaterThan(System.currentTimeMillis());
            assertThat(file.read(0, 10)).containsExactly(7, 7, 7, 7, 8);
            file.truncate(2);
            assertThat(file.read(0, 10)).containsExactly(7, 7);
        }
        volume.invalidateCache();
        assertThat(volume.getattr("/idle").getSizeBytes()).isEqualTo(2);

        FileHandle idle = volume.open("/idle", OpenFlags.O_WRONLY, 0);
        idle.write(2, new byte[] {6, 6});
        long expiryMs = idle.credentials().getXcap().getExpiresMs();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> System.currentTimeMillis() > expiryMs + 100);
        idle.close();
        volume.invalidateCache();
        assertThat(volume.getattr("/idle").getSizeBytes()).isEqualTo(4);
    }
}
