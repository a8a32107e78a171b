package org.xtreemfs.foundation.stubs;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.rpc.ServiceAddress;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;

/**
 * Resolves service UUIDs to socket addresses through the DIR's address mappings, caching each answer for
 * {@code cacheTtlMs}. The address is a {@link ServiceAddress} carrying the scheme the server registered (pbrpc or
 * pbrpcs), so the RPC client speaks TLS or plain TCP to it as the server does. A UUID without a mapping of a scheme
 * this transport speaks fails with ENOENT naming the UUID (and the protocols it has).
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
            InetSocketAddress address = rpcAddress(uuid, mappings);
            cache.put(uuid, new Entry(address, monotonicNanos.getAsLong() + cacheTtlNanos));
            return address;
        });
    }

    /**
     * The first mapping of a scheme this transport speaks, as an address with that scheme.
     *
     * @throws java.util.concurrent.CompletionException of ENOENT naming the UUID and the protocols it has
     */
    static ServiceAddress rpcAddress(String uuid, AddressMappingSet mappings) {
        for (AddressMapping mapping : mappings.getMappingsList()) {
            var scheme = RpcScheme.ofMapping(mapping.getProtocol());
            if (scheme.isPresent()) {
                return new ServiceAddress(scheme.get(), mapping.getAddress(), mapping.getPort());
            }
        }
        String protocols = mappings.getMappingsList().stream().map(AddressMapping::getProtocol).toList().toString();
        throw new java.util.concurrent.CompletionException(RpcException.errno(Errno.ENOENT,
                "no address known for service UUID '" + uuid + "'" + (mappings.getMappingsCount() == 0 ? ""
                        : " in a scheme this client speaks (pbrpc, pbrpcs); it has " + protocols)));
    }

    /** Forgets a cached address, e.g. after a connection to it failed. */
    public void invalidate(String uuid) {
        cache.remove(uuid);
    }
}
