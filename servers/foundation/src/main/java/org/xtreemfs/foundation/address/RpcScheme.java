package org.xtreemfs.foundation.address;

import java.util.Locale;
import java.util.Optional;

/**
 * How a server's RPC port is spoken, by XtreemFS's scheme names: {@code pbrpc} (plain TCP) and {@code pbrpcs}
 * (TLS). A server registers the scheme it serves in its DIR address mapping ({@code AddressMapping.protocol}), and
 * a user may write it in a DIR URL ({@code pbrpcs://host:port/volume}); a client then speaks TLS or plain TCP per
 * server by it. This is the one place the names are known and parsed (cpp/src/rpc/scheme.h is the C++ client's
 * copy of the same table). XtreemFS's third scheme, {@code pbrpcg} (TLS for the handshake only), is recognised and
 * refused by name. A package of its own, outside {@code foundation.rpc}: a table of names, which the DIR's registry
 * (that knows nothing of the network) reads too.
 */
public enum RpcScheme {
    PBRPC("pbrpc", false),
    PBRPCS("pbrpcs", true);

    /** XtreemFS's "grid SSL" scheme: known, so that refusing it can say why. */
    public static final String GRID_SSL_NAME = "pbrpcg";

    private final String schemeName;
    private final boolean tls;

    RpcScheme(String schemeName, boolean tls) {
        this.schemeName = schemeName;
        this.tls = tls;
    }

    /** The name in URLs and address mappings, e.g. {@code pbrpcs}. */
    public String schemeName() {
        return schemeName;
    }

    /** {@code scheme://authority}, e.g. {@code pbrpcs://10.0.0.2:32640} for the authority {@code 10.0.0.2:32640}. */
    public String url(String authority) {
        return schemeName + "://" + authority;
    }

    /** Whether connections speak TLS. */
    public boolean tls() {
        return tls;
    }

    /** The scheme of a port that does or does not speak TLS. */
    public static RpcScheme forTls(boolean tls) {
        return tls ? PBRPCS : PBRPC;
    }

    /**
     * Parses a scheme name (case-insensitive).
     *
     * @throws IllegalArgumentException naming the scheme: unknown, or pbrpcg (not supported)
     */
    public static RpcScheme parse(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (RpcScheme scheme : values()) {
            if (scheme.schemeName.equals(lower)) {
                return scheme;
            }
        }
        if (GRID_SSL_NAME.equals(lower)) {
            throw new IllegalArgumentException("scheme '" + name + "' (XtreemFS's TLS-for-the-handshake-only mode) is"
                    + " not supported; use pbrpcs (TLS) or pbrpc (plain)");
        }
        throw new IllegalArgumentException("unknown scheme '" + name + "'; expected pbrpc (plain) or pbrpcs (TLS)");
    }

    /**
     * The scheme of a DIR address mapping's protocol: {@code ""} (a registration that named none) is pbrpc; empty
     * when the protocol is not one this transport speaks (a mapping of another kind, or pbrpcg).
     */
    public static Optional<RpcScheme> ofMapping(String protocol) {
        if (protocol.isEmpty()) {
            return Optional.of(PBRPC);
        }
        try {
            return Optional.of(parse(protocol));
        } catch (IllegalArgumentException notRpc) {
            return Optional.empty();
        }
    }

    /** A URL split at its scheme: {@code scheme} is empty when the URL has no {@code ...://} prefix. */
    public record Split(Optional<RpcScheme> scheme, String rest) {}

    /**
     * Splits {@code [scheme://]rest}.
     *
     * @throws IllegalArgumentException naming an unknown or unsupported scheme
     */
    public static Split split(String url) {
        int schemeEnd = url.indexOf("://");
        if (schemeEnd < 0) {
            return new Split(Optional.empty(), url);
        }
        return new Split(Optional.of(parse(url.substring(0, schemeEnd))), url.substring(schemeEnd + 3));
    }
}
