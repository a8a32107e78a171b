package org.xtreemfs.foundation.rpc;

import org.xtreemfs.foundation.address.RpcScheme;
import java.util.Optional;
import org.xtreemfs.foundation.config.HostPort;
import org.xtreemfs.foundation.config.SettingType;

/**
 * A server's address as configured: {@code [pbrpc://|pbrpcs://]host:port} (e.g. a server's {@code *.dir.address}).
 * With a scheme it says how the port is spoken; without one the caller's default applies (a server's: the scheme of
 * its own port), which is how a cluster that is all TLS or all plain writes it.
 */
public record RpcUrl(Optional<RpcScheme> scheme, HostPort hostPort) {

    /** The setting type of such addresses. */
    public static final SettingType<RpcUrl> SETTING_TYPE = new SettingType<>() {
        @Override
        public RpcUrl parse(String raw) {
            return RpcUrl.parse(raw);
        }

        @Override
        public String format(RpcUrl value) {
            return value.toString();
        }

        @Override
        public String describe() {
            return "[pbrpc://|pbrpcs://]host:port";
        }
    };

    /**
     * Parses {@code [scheme://]host:port}.
     *
     * @throws IllegalArgumentException naming the bad scheme or address
     */
    public static RpcUrl parse(String text) {
        RpcScheme.Split split = RpcScheme.split(text);
        return new RpcUrl(split.scheme(), HostPort.parse(split.rest()));
    }

    /** A URL without a scheme. */
    public static RpcUrl of(HostPort hostPort) {
        return new RpcUrl(Optional.empty(), hostPort);
    }

    /** The address to call, by the given scheme or else {@code defaultScheme}. */
    public ServiceAddress socketAddress(RpcScheme defaultScheme) {
        return new ServiceAddress(scheme.orElse(defaultScheme), hostPort.host(), hostPort.port());
    }

    @Override
    public String toString() {
        return scheme.map(given -> given.url(hostPort.toString())).orElseGet(hostPort::toString);
    }
}
