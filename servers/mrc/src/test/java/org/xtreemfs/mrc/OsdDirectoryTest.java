package org.xtreemfs.mrc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.registry.OsdDirectory;

class OsdDirectoryTest {
    @Test
    void answersFromTheCacheAndRefreshesInTheBackground() throws Exception {
        // The first call waits for the DIR; later ones answer from the cache, and a stale cache is refreshed.
        ManualClock clock = new ManualClock();
        try (FakeDir dir = new FakeDir(); RpcClient rpcClient = new RpcClient("test")) {
            dir.addOsd("osd-1", 1L << 30);
            OsdDirectory osds = new OsdDirectory(new DirServiceClient(rpcClient, dir.address, 5_000), clock, 1_000);
            assertThat(RpcClient.await(osds.current())).extracting(OsdCandidate::uuid).containsExactly("osd-1");
            dir.addOsd("osd-2", 1L << 30);
            assertThat(RpcClient.await(osds.current())).extracting(OsdCandidate::uuid).containsExactly("osd-1");
            clock.advanceMillis(1_000);
            assertThat(RpcClient.await(osds.current())).hasSizeBetween(1, 2);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(osds.cached()).hasSize(2));
        }
    }

    @Test
    void aFailedPlacementMakesTheNextCallRefreshBeforeTheTtl() throws Exception {
        // An OSD that registered after the list was fetched: within the TTL (a minute here) the cached list stays,
        // until a placement reports it too short; then the next call asks the DIR, and the new OSD appears.
        ManualClock clock = new ManualClock();
        try (FakeDir dir = new FakeDir(); RpcClient rpcClient = new RpcClient("test")) {
            dir.addOsd("osd-1", 1L << 30);
            OsdDirectory osds = new OsdDirectory(new DirServiceClient(rpcClient, dir.address, 5_000), clock, 60_000);
            assertThat(RpcClient.await(osds.current())).extracting(OsdCandidate::uuid).containsExactly("osd-1");
            dir.addOsd("osd-2", 1L << 30);
            clock.advanceMillis(59_000);
            assertThat(RpcClient.await(osds.current())).extracting(OsdCandidate::uuid).containsExactly("osd-1");
            assertThat(osds.cached()).hasSize(1);
            osds.placementFailed();
            assertThat(RpcClient.await(osds.current())).hasSizeBetween(1, 2);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(osds.cached()).hasSize(2));
            dir.addOsd("osd-3", 1L << 30);
            RpcClient.await(osds.current()); // fresh again: no refresh until the TTL or the next failed placement
            assertThat(osds.cached()).hasSize(2);
        }
    }

    @Test
    void unreachableDirKeepsTheLastKnownList() throws Exception {
        // When the DIR goes away the cached OSDs stay in use.
        ManualClock clock = new ManualClock();
        try (RpcClient rpcClient = new RpcClient("test")) {
            FakeDir dir = new FakeDir();
            dir.addOsd("osd-1", 1L << 30);
            OsdDirectory osds = new OsdDirectory(new DirServiceClient(rpcClient, dir.address, 2_000), clock, 10);
            RpcClient.await(osds.current());
            dir.close();
            clock.advanceMillis(100);
            assertThat(RpcClient.await(osds.refresh())).extracting(OsdCandidate::uuid).containsExactly("osd-1");
            assertThat(RpcClient.await(osds.current())).extracting(OsdCandidate::uuid).containsExactly("osd-1");
        }
    }
}
