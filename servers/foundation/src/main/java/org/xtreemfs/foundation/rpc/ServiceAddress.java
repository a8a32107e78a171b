package org.xtreemfs.foundation.rpc;

import org.xtreemfs.foundation.address.RpcScheme;
import java.net.InetSocketAddress;

/**
 * A server's RPC address together with the scheme its port speaks, as the DIR's address mapping or a user's URL
 * states it. It is an {@link InetSocketAddress}, so it goes through every stub unchanged, and {@link RpcClient}
 * speaks TLS or plain TCP to it by its scheme; a plain {@code InetSocketAddress} gets the client's own default (see
 * {@link RpcClient}). Equality is {@code InetSocketAddress}'s (host and port): one port speaks one scheme.
 */
public final class ServiceAddress extends InetSocketAddress {
    private static final long serialVersionUID = 1L;

    private final RpcScheme scheme;

    /** Resolves {@code host} now (as {@code new InetSocketAddress(host, port)} does; unresolved if that fails). */
    public ServiceAddress(RpcScheme scheme, String host, int port) {
        super(host, port);
        this.scheme = scheme;
    }

    public RpcScheme scheme() {
        return scheme;
    }

    /** {@code scheme://host:port}, e.g. {@code pbrpcs://10.0.0.2:32640}. */
    @Override
    public String toString() {
        String host = getHostString();
        return scheme.url((host.contains(":") ? "[" + host + "]" : host) + ":" + getPort());
    }
}
