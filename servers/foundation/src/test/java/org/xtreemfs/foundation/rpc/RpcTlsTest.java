package org.xtreemfs.foundation.rpc;

import org.xtreemfs.foundation.address.RpcScheme;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * TLS on an RPC port with certificates made by the openssl commands servers/foundation's README documents: a
 * client that trusts the CA is served; a plain client is answered AUTH_FAILED saying the port speaks TLS only; a
 * client trusting another CA and a certificate that does not name the address are refused; a server that requires
 * client certificates refuses a client without one and tells the handler whom a certificate names.
 */
class RpcTlsTest {
    private static final int INTERFACE = 7;
    private static final int ECHO = 1;
    /** Answers the subject of the caller's certificate. */
    private static final int WHO = 2;
    /** Answers bytes 1000..1000+length of the file "segment" as a {@link FileSegment} (gid: length). */
    private static final int SEGMENT = 3;
    /** Segments released by the transport. */
    private static final java.util.concurrent.atomic.AtomicInteger SEGMENTS_RELEASED =
            new java.util.concurrent.atomic.AtomicInteger();
    /**
     * Deadline of every call: not a speed bound, since what is asserted is who is served and why others are refused.
     * The first TLS handshake of a JVM loads and initialises the JDK's TLS: 1.8-4.7 s at a load average of 28 on 2
     * cores (a later handshake 0.4-0.5 s), which a deadline of 5 s lost under load. Refusals are closes that name the
     * TLS failure, within a second (asserted by their messages), never this deadline.
     */
    private static final long CALL_TIMEOUT_MS = 60_000;

    @TempDir
    static Path folder;

    @BeforeAll
    static void makeCertificates() throws Exception {
        makeAuthority("ca");
        makeAuthority("other-ca");
        makeCertificate("ca", "server", "IP:127.0.0.1,DNS:localhost");
        makeCertificate("ca", "elsewhere", "DNS:elsewhere.example");
        makeCertificate("ca", "client", "DNS:client.example");
    }

    /** The README's commands for a test CA. */
    private static void makeAuthority(String name) throws Exception {
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".pem",
                "-days", "30", "-subj", "/CN=XtreemFS test " + name);
    }

    /** The README's commands for a certificate signed by {@code authority}, naming {@code alternativeNames}. */
    private static void makeCertificate(String authority, String name, String alternativeNames) throws Exception {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                "-subj", "/CN=" + name);
        Files.writeString(folder.resolve(name + ".ext"), "subjectAltName=" + alternativeNames + "\n");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", authority + ".pem", "-CAkey", authority + ".key",
                "-CAcreateserial", "-out", name + ".pem", "-days", "30", "-extfile", name + ".ext");
    }

    private static void openssl(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
    }

    private static RpcServer echoServer(RpcTls tls) {
        return RpcServer.builder("tls-echo", new InetSocketAddress("127.0.0.1", 0)).tls(tls)
                .handle(INTERFACE, ECHO, call -> call.respond(call.request(UserCredentials.parser())))
                .handle(INTERFACE, WHO, call -> call.respond(UserCredentials.newBuilder().setUsername(
                        call.peerCertificate().map(certificate -> certificate.getSubjectX500Principal().getName())
                                .orElse("nobody")).build()))
                .handle(INTERFACE, SEGMENT, call -> {
                    java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(file("segment"));
                    call.respond(call.request(UserCredentials.parser()), new FileSegment(file, 1000,
                            call.request(UserCredentials.parser()).getGid(), () -> {
                                SEGMENTS_RELEASED.incrementAndGet();
                                try {
                                    file.close();
                                } catch (java.io.IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            }));
                })
                .build();
    }

    // TLS encrypts every byte in user space, so a reply's file segment (sendfile on a plain connection) is read into
    // a buffer and sent encrypted: the client gets exactly the range, and the segment is released.
    @Test
    void aFileSegmentIsSentOverTlsAsACopy() throws Exception {
        byte[] bytes = new byte[400_000];
        new java.util.Random(3).nextBytes(bytes);
        java.nio.file.Files.write(file("segment"), bytes);
        RpcServer server = echoServer(RpcTls.server(file("server.pem"), file("server.key"), Optional.empty()));
        try (server; RpcClient trusting = client(RpcTls.client(file("ca.pem"), Optional.empty(), Optional.empty()))) {
            InetSocketAddress address = server.start();
            int released = SEGMENTS_RELEASED.get();
            try (RpcResponse response = RpcClient.await(trusting.call(address, INTERFACE, SEGMENT, null,
                    UserCredentials.newBuilder().setUsername("tls").setGid(300_000).build(), null, CALL_TIMEOUT_MS))) {
                assertThat(response.message(UserCredentials.parser()).getUsername()).isEqualTo("tls");
                assertThat(response.dataBytes()).isEqualTo(java.util.Arrays.copyOfRange(bytes, 1000, 301_000));
            }
            assertThat(SEGMENTS_RELEASED.get()).as("released before the reply was sent").isEqualTo(released + 1);
        }
    }

    private static String echo(RpcClient client, InetSocketAddress address, String name) throws RpcException {
        return RpcClient.await(client.callParsed(address, INTERFACE, ECHO, null,
                UserCredentials.newBuilder().setUsername(name).build(), UserCredentials.parser(), CALL_TIMEOUT_MS))
                .getUsername();
    }

    private static RpcClient client(RpcTls tls) {
        return new RpcClient("tls-test", FrameLimits.DEFAULT, 5_000, tls);
    }

    private static Path file(String name) {
        return folder.resolve(name);
    }

    @Test
    void aClientTrustingTheAuthorityIsServedAndOthersAreRefused() throws Exception {
        RpcServer server = echoServer(RpcTls.server(file("server.pem"), file("server.key"), Optional.empty()));
        try (server;
                RpcClient trusting = client(RpcTls.client(file("ca.pem"), Optional.empty(), Optional.empty()));
                RpcClient plain = new RpcClient("plain");
                RpcClient otherAuthority = client(RpcTls.client(file("other-ca.pem"), Optional.empty(),
                        Optional.empty()))) {
            InetSocketAddress address = server.start();
            assertThat(echo(trusting, address, "alice")).isEqualTo("alice");
            assertThatThrownBy(() -> echo(plain, address, "bob")).as("a plain client learns why it is refused")
                    .isInstanceOfSatisfying(RpcException.class, error -> assertThat(error.errorType())
                            .isEqualTo(ErrorType.AUTH_FAILED))
                    .hasMessageContaining("speaks TLS only");
            assertThatThrownBy(() -> echo(otherAuthority, address, "carol"))
                    .isInstanceOf(RpcTransportException.class).hasMessageContaining("certification path");
            assertThat(echo(trusting, address, "dave")).as("the server keeps serving").isEqualTo("dave");
        }
    }

    @Test
    void aCertificateThatDoesNotNameTheAddressIsRefused() throws Exception {
        RpcServer server = echoServer(RpcTls.server(file("elsewhere.pem"), file("elsewhere.key"), Optional.empty()));
        try (server; RpcClient trusting = client(RpcTls.client(file("ca.pem"), Optional.empty(), Optional.empty()))) {
            InetSocketAddress address = server.start();
            assertThatThrownBy(() -> echo(trusting, address, "alice")).isInstanceOf(RpcTransportException.class)
                    .hasMessageContaining("No subject alternative names matching IP address 127.0.0.1");
        }
    }

    @Test
    void aServerRequiringClientCertificatesServesOnlyClientsWithOne() throws Exception {
        RpcServer server = echoServer(RpcTls.server(file("server.pem"), file("server.key"),
                Optional.of(file("ca.pem"))));
        try (server;
                RpcClient withCertificate = client(RpcTls.client(file("ca.pem"), Optional.of(file("client.pem")),
                        Optional.of(file("client.key"))));
                RpcClient without = client(RpcTls.client(file("ca.pem"), Optional.empty(), Optional.empty()))) {
            InetSocketAddress address = server.start();
            assertThat(echo(withCertificate, address, "alice")).isEqualTo("alice");
            assertThat(RpcClient.await(withCertificate.callParsed(address, INTERFACE, WHO, null,
                    UserCredentials.getDefaultInstance(), UserCredentials.parser(), CALL_TIMEOUT_MS)).getUsername())
                    .as("the handler sees the certificate's subject").isEqualTo("CN=client");
            assertThatThrownBy(() -> echo(without, address, "bob")).as("refused by the handshake, not by silence")
                    .isInstanceOf(RpcTransportException.class).hasMessageContaining("CERTIFICATE_REQUIRED"); // BoringSSL's name of the TLS 1.3 alert
        }
    }

    private static RpcServer plainEchoServer() {
        return RpcServer.builder("plain-echo", new InetSocketAddress("127.0.0.1", 0))
                .handle(INTERFACE, ECHO, call -> call.respond(call.request(UserCredentials.parser()))).build();
    }

    // A mixed cluster: one client speaks TLS to the pbrpcs server and plain TCP to the pbrpc one, by their schemes.
    @Test
    void oneClientSpeaksEachServersSchemeAndAClientWithoutTlsIsToldWhy() throws Exception {
        RpcServer tlsServer = echoServer(RpcTls.server(file("server.pem"), file("server.key"), Optional.empty()));
        RpcServer plainServer = plainEchoServer();
        try (tlsServer; plainServer;
                RpcClient withTls = client(RpcTls.client(file("ca.pem"), Optional.empty(), Optional.empty()));
                RpcClient withoutTls = new RpcClient("no-tls")) {
            assertThat(tlsServer.scheme()).isEqualTo(RpcScheme.PBRPCS);
            assertThat(plainServer.scheme()).isEqualTo(RpcScheme.PBRPC);
            InetSocketAddress tlsAddress = new ServiceAddress(tlsServer.scheme(), "127.0.0.1",
                    tlsServer.start().getPort());
            InetSocketAddress plainAddress = new ServiceAddress(plainServer.scheme(), "127.0.0.1",
                    plainServer.start().getPort());
            assertThat(echo(withTls, tlsAddress, "alice")).isEqualTo("alice");
            assertThat(echo(withTls, plainAddress, "bob")).isEqualTo("bob");
            assertThat(tlsServer.plainClientsRefused()).isZero();
            assertThat(echo(withoutTls, plainAddress, "carol")).isEqualTo("carol");
            long startNanos = System.nanoTime();
            assertThatThrownBy(() -> echo(withoutTls, tlsAddress, "dave"))
                    .isInstanceOfSatisfying(RpcException.class, error -> assertThat(error.errorType())
                            .isEqualTo(ErrorType.AUTH_FAILED))
                    .hasMessageContaining("pbrpcs://127.0.0.1:" + tlsAddress.getPort())
                    .hasMessageContaining("no TLS configuration");
            assertThat(System.nanoTime() - startNanos).as("refused at once, not after a timeout")
                    .isLessThan(java.util.concurrent.TimeUnit.SECONDS.toNanos(5));
            assertThat(tlsServer.plainClientsRefused()).as("nothing was sent to the TLS port").isZero();
        }
    }

    @Test
    void missingFilesAreNamed() {
        assertThatThrownBy(() -> RpcTls.server(file("none.pem"), file("server.key"), Optional.empty()))
                .isInstanceOf(IOException.class).hasMessageContaining("none.pem");
        assertThatThrownBy(() -> RpcTls.client(file("ca.pem"), Optional.of(file("client.pem")), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
