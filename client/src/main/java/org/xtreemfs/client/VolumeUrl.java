package org.xtreemfs.client;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.regex.Pattern;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.rpc.ServiceAddress;

/**
 * A location in XtreemFS as tools and users write it: {@code [pbrpc[s]://]host[:port][/volume[/path/in/volume]]}.
 * The host and port are the DIR's (default port {@value #DEFAULT_DIR_PORT}); the scheme (parsed by {@link RpcScheme})
 * says whether the DIR speaks TLS (pbrpcs) or plain TCP (pbrpc); without one the client speaks TLS when it has a TLS
 * configuration (--tls-ca). This is the one place URLs are parsed; every error names the whole bad URL and what is
 * wrong with it.
 *
 * @param volumeName empty when the URL names only a DIR
 * @param path the volume-relative path, normalised as by {@link VolumePath#normalize}; "/" when none given
 * @param scheme the scheme the URL gives, if it gives one
 */
public record VolumeUrl(String host, int port, String volumeName, String path, Optional<RpcScheme> scheme) {
    public static final int DEFAULT_DIR_PORT = 32638;

    /** A URL without a scheme. */
    public VolumeUrl(String host, int port, String volumeName, String path) {
        this(host, port, volumeName, path, Optional.empty());
    }

    /** The same DIR and volume (and scheme) at another path. */
    public VolumeUrl withPath(String newPath) {
        return new VolumeUrl(host, port, volumeName, newPath, scheme);
    }

    /** Whether {@code text} starts with a scheme ({@code ...://}), which makes it a URL rather than a local path. */
    public static boolean hasScheme(String text) {
        return text.contains("://");
    }
    /** Volume names are what the MRC accepts and what is safe in a URL: letters, digits, '.', '_', '-'. */
    private static final Pattern VOLUME_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?");

    /** Parses a URL that must name a volume (an optional path inside it is kept). */
    public static VolumeUrl parse(String url) {
        VolumeUrl parsed = parseAny(url);
        if (parsed.volumeName().isEmpty()) {
            throw invalid(url, "names no volume; expected [pbrpc[s]://]host[:port]/volume");
        }
        return parsed;
    }

    /** Parses a URL that names a DIR and must not name a volume. */
    public static VolumeUrl parseDirectoryService(String url) {
        VolumeUrl parsed = parseAny(url);
        if (!parsed.volumeName().isEmpty()) {
            throw invalid(url, "names volume '" + parsed.volumeName() + "'; expected only [pbrpc[s]://]host[:port]");
        }
        return parsed;
    }

    /** Checks a volume name on its own (e.g. a name given outside a URL). */
    public static String requireValidVolumeName(String name) {
        if (name == null || !VOLUME_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid volume name '" + name + "': use 1 to 128 letters, digits,"
                    + " '.', '_' or '-', not starting with '.' or '-'");
        }
        return name;
    }

    /** The DIR: a {@link ServiceAddress} of the URL's scheme, or (none given) one the client's default speaks. */
    public InetSocketAddress dirAddress() {
        return scheme.<InetSocketAddress>map(given -> new ServiceAddress(given, host, port))
                .orElseGet(() -> new InetSocketAddress(host, port));
    }

    /** The URL in canonical form, with scheme (pbrpc when none was given) and port. */
    @Override
    public String toString() {
        String hostPart = host.contains(":") ? "[" + host + "]" : host;
        String suffix = volumeName.isEmpty() ? "" : "/" + volumeName + ("/".equals(path) ? "" : path);
        return scheme.orElse(RpcScheme.PBRPC).url(hostPart + ":" + port + suffix);
    }

    private static VolumeUrl parseAny(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("empty URL; expected [pbrpc[s]://]host[:port]/volume");
        }
        RpcScheme.Split split;
        try {
            split = RpcScheme.split(url.trim());
        } catch (IllegalArgumentException e) {
            throw invalid(url, e.getMessage());
        }
        String rest = split.rest();
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String pathPart = slash < 0 ? "" : rest.substring(slash + 1);
        String host;
        String portText = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw invalid(url, "has an unterminated IPv6 address");
            }
            host = authority.substring(1, close);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw invalid(url, "has unexpected text '" + after + "' after the IPv6 address");
                }
                portText = after.substring(1);
            }
            if (host.isEmpty() || !host.matches("[0-9A-Fa-f:.%a-zA-Z]+")) {
                throw invalid(url, "has the invalid IPv6 address '" + host + "'");
            }
        } else {
            int colon = authority.indexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            portText = colon < 0 ? null : authority.substring(colon + 1);
            if (host.isEmpty()) {
                throw invalid(url, "names no host");
            }
            if (!HOST_NAME.matcher(host).matches()) {
                throw invalid(url, "has the invalid host name '" + host + "'");
            }
        }
        int port = DEFAULT_DIR_PORT;
        if (portText != null) {
            try {
                port = Integer.parseInt(portText);
            } catch (NumberFormatException e) {
                throw invalid(url, "has the invalid port '" + portText + "'");
            }
            if (port < 1 || port > 65535) {
                throw invalid(url, "has the port " + port + " outside 1..65535");
            }
        }
        String volumeName = "";
        String path = "/";
        if (!pathPart.isEmpty()) {
            int nextSlash = pathPart.indexOf('/');
            volumeName = nextSlash < 0 ? pathPart : pathPart.substring(0, nextSlash);
            if (!VOLUME_NAME.matcher(volumeName).matches()) {
                throw invalid(url, "has the invalid volume name '" + volumeName + "' (use letters, digits, '.', '_',"
                        + " '-', at most 128, not starting with '.' or '-')");
            }
            if (nextSlash >= 0) {
                try {
                    path = VolumePath.normalize(pathPart.substring(nextSlash));
                } catch (IllegalArgumentException e) {
                    throw invalid(url, e.getMessage());
                }
            }
        }
        return new VolumeUrl(host, port, volumeName, path, split.scheme());
    }

    private static IllegalArgumentException invalid(String url, String problem) {
        return new IllegalArgumentException("invalid URL '" + url + "': " + problem);
    }
}
