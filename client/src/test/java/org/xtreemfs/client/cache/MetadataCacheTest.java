package org.xtreemfs.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MetadataCacheTest {
    private final AtomicLong nowNanos = new AtomicLong(1_000);
    private final MetadataCache<String> cache = new MetadataCache<>(100, 3, nowNanos::get);

    // An entry is reused until its TTL passes and is gone afterwards.
    @Test
    void entriesExpireAfterTheTtl() {
        cache.put("/a", "stat-a");
        nowNanos.addAndGet(99_000_000L);
        assertThat(cache.get("/a")).isEqualTo("stat-a");
        nowNanos.addAndGet(1_000_000L);
        assertThat(cache.get("/a")).isNull();
    }

    // Invalidating a tree drops the directory and everything below it, but not a sibling sharing a prefix.
    @Test
    void invalidateTreeDropsSubtreeOnly() {
        cache.put("/d", "d");
        cache.put("/d/f", "f");
        cache.put("/dx", "dx");
        cache.invalidateTree("/d");
        assertThat(cache.get("/d")).isNull();
        assertThat(cache.get("/d/f")).isNull();
        assertThat(cache.get("/dx")).isEqualTo("dx");
    }

    // The cache never holds more than its bound.
    @Test
    void sizeIsBounded() {
        for (int index = 0; index < 50; index++) {
            cache.put("/f" + index, "v");
            assertThat(cache.size()).isLessThanOrEqualTo(3);
        }
        assertThat(cache.get("/f49")).isEqualTo("v");
    }

    // A TTL of zero disables caching.
    @Test
    void zeroTtlCachesNothing() {
        MetadataCache<String> disabled = new MetadataCache<>(0, 3, nowNanos::get);
        disabled.put("/a", "x");
        assertThat(disabled.get("/a")).isNull();
    }
}
