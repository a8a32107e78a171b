package org.xtreemfs.foundation.stubs;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.dir.AddressMapping;

/**
 * Resolves service UUIDs to socket addresses through the DIR's address mappings, caching each answer for
 * {@code cacheTtlMs}. A UUID without a mapping fails with ENOENT naming the UUID.
 */
public final class UuidResolver {
    private record Entry(InetSocketAddress address, long expiresNanos) {}

    private final DirServiceClient dir;
    private final long cacheTtlNanos;
    private final LongSupplier monotonicNanos;
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();

    public UuidResolver(DirServiceClient dir, long cacheTtlMs, LongSupplier monotonicNanos) {
        this.dir = dir;
        this.cacheTtlNanos = cacheTtlMs * 1_000_000L;
        this.monotonicNanos = monotonicNanos;
    }

    public CompletableFuture<InetSocketAddress> resolve(String uuid) {
        Entry cached = cache.get(uuid);
        long now = monotonicNanos.getAsLong();
        if (cached != null && cached.expiresNanos() - now > 0) {
            return CompletableFuture.completedFuture(cached.address());
        }
        return dir.addressMappingsGet(uuid).thenApply(mappings -> {
            if (mappings.getMappingsCount() == 0) {
                throw new java.util.concurrent.CompletionException(
                        RpcException.errno(Errno.ENOENT, "no address known for service UUID '" + uuid + "'"));
            }
            AddressMapping mapping = mappings.getMappings(0);
            InetSocketAddress address = new InetSocketAddress(mapping.getAddress(), mapping.getPort());
            cache.put(uuid, new Entry(address, monotonicNanos.getAsLong() + cacheTtlNanos));
            return address;
        });
    }

    /** Forgets a cached address, e.g. after a connection to it failed. */
    public void invalidate(String uuid) {
        cache.remove(uuid);
    }
}
