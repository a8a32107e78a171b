package org.xtreemfs.foundation.rpc;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * TLS for the RPC ports, from PEM files (Netty's {@code SslHandler} on BoringSSL through netty-tcnative, or on the
 * JDK's TLS where the native library does not load: {@link #provider()}). A server presents its
 * certificate chain; a client trusts the certificates of one file (the cluster's CA) and checks that the
 * server's certificate names the address it connects to (the certificate's subject alternative names must hold
 * the host name or IP address that clients use), so a certificate of another host of the same CA is refused.
 * A server may require client certificates signed by a CA it trusts. Making a test CA: see servers/foundation's
 * README ("TLS").
 */
public final class RpcTls {
    private final SslContext context;
    private final boolean server;

    private RpcTls(SslContext context, boolean server) {
        this.context = context;
        this.server = server;
    }

    /**
     * A server's TLS: its certificate chain and its PKCS#8 private key (PEM, unencrypted); with
     * {@code clientCertificateAuthority}, connecting clients must present a certificate that CA signed.
     *
     * @throws IOException naming the file that is missing or unreadable
     */
    public static RpcTls server(Path certificateChain, Path privateKey, Optional<Path> clientCertificateAuthority)
            throws IOException {
        requireReadable(certificateChain);
        requireReadable(privateKey);
        SslContextBuilder builder = SslContextBuilder.forServer(certificateChain.toFile(), privateKey.toFile());
        if (clientCertificateAuthority.isPresent()) {
            requireReadable(clientCertificateAuthority.get());
            builder.trustManager(clientCertificateAuthority.get().toFile()).clientAuth(ClientAuth.REQUIRE);
        }
        return new RpcTls(build(builder, certificateChain), true);
    }

    /**
     * A client's TLS: it trusts the certificates in {@code certificateAuthority} (PEM) and, with
     * {@code certificateChain} and {@code privateKey}, presents a client certificate.
     */
    public static RpcTls client(Path certificateAuthority, Optional<Path> certificateChain,
            Optional<Path> privateKey) throws IOException {
        requireReadable(certificateAuthority);
        SslContextBuilder builder = SslContextBuilder.forClient().trustManager(certificateAuthority.toFile());
        if (certificateChain.isPresent() != privateKey.isPresent()) {
            throw new IllegalArgumentException("a client certificate needs both its chain and its private key");
        }
        if (certificateChain.isPresent()) {
            requireReadable(certificateChain.get());
            requireReadable(privateKey.get());
            builder.keyManager(certificateChain.get().toFile(), privateKey.get().toFile());
        }
        return new RpcTls(build(builder, certificateAuthority), false);
    }

    /** The handler that goes first in a connection's pipeline; a client's checks the server's name. */
    SslHandler newHandler(ByteBufAllocator allocator, InetSocketAddress peer) {
        if (server) {
            return context.newHandler(allocator);
        }
        SslHandler handler = context.newHandler(allocator, peer.getHostString(), peer.getPort());
        SSLEngine engine = handler.engine();
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host or IP
        engine.setSSLParameters(parameters);
        return handler;
    }

    /**
     * BoringSSL when its native library loads, else the JDK's TLS. Why: the servers ran C1-only when this was measured (the
     * MRC still does; the OSD runs tiered C2 since session 13), and C1 does not use the JDK's AES-GCM intrinsics, so the JDK's TLS held a striped volume's throughput through
     * a mount at 0.13-0.21 of plain (tests/bench/tls/tls_speed.sh on a quiet machine).
     */
    public static SslProvider provider() {
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    private static SslContext build(SslContextBuilder builder, Path file) throws IOException {
        try {
            return builder.sslProvider(provider()).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("TLS files around " + file + " unusable: " + e.getMessage(), e);
        }
    }

    private static void requireReadable(Path file) throws IOException {
        if (!Files.isReadable(file)) {
            throw new IOException("TLS file " + file + " does not exist or cannot be read");
        }
    }
}
