package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.client.tools.cluster.ClusterDescription;
import org.xtreemfs.client.tools.cluster.LocalCluster;
import org.xtreemfs.client.tools.cluster.TestAuthority;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcTls;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * TLS across a whole cluster started by the launcher ({@code LocalCluster} with a test CA it makes): the DIR, the
 * MRC and the OSDs require client certificates, so the OSDs' and the MRC's registrations and heartbeats at the DIR
 * and the MRC's OSD listings only work over TLS with the servers' own certificates; the Java client writes and
 * reads a file striped over both OSDs; a plain client is refused with an answer saying the port speaks TLS only;
 * and with {@code mrc.identity.fromCertificate} the MRC takes the caller from the certificate, ignoring forged
 * credentials in the request.
 */
class TlsClusterTest {
    private static final int MIB = 1 << 20;

    @Test
    void theWholeClusterSpeaksTlsAndTheJavaClientWritesAndReads() throws Exception {
        try (TestCluster cluster = TestCluster.startTls(2, ClusterDescription.Tls.CLIENT_CERTIFICATES, Map.of());
                Client client = cluster.client()) {
            // Started means every OSD and the MRC registered and sent a heartbeat over TLS with its certificate.
            assertThat(client.services(ServiceType.SERVICE_TYPE_OSD)).hasSize(2);
            Volumes.create(client, "secure", 2);
            Volume volume = client.openVolume("secure");
            byte[] written = new byte[3 * MIB + 12_345];
            new Random(13).nextBytes(written);
            try (FileHandle file = volume.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644)) {
                assertThat(file.stripeOsdUuids()).containsExactlyInAnyOrderElementsOf(cluster.osdUuids());
                file.write(0, written, 0, written.length);
                file.fsync();
            }
            byte[] read = new byte[written.length];
            try (FileHandle file = volume.open("/f", OpenFlags.O_RDONLY, 0)) {
                assertThat(file.read(0, read, 0, read.length)).isEqualTo(written.length);
            }
            assertThat(Arrays.equals(read, written)).as("the bytes read back over TLS are those written").isTrue();

            // A plain client that dials the TLS DIR as plain (no scheme) is told so by the server ...
            InetSocketAddress dirWithoutScheme = new InetSocketAddress(cluster.dirAddress().getHostString(),
                    cluster.dirAddress().getPort());
            try (Client plain = Client.connect(dirWithoutScheme, ClientOptions.builder().retryWindowMs(0)
                    .build())) {
                assertThatThrownBy(plain::listVolumes).isInstanceOf(XtreemFSException.class)
                        .hasMessageContaining("speaks TLS only")
                        .satisfies(error -> assertThat(((XtreemFSException) error).errorType())
                                .isEqualTo(ErrorType.AUTH_FAILED));
            }
            // ... and one that knows the DIR speaks TLS (pbrpcs) fails at once, naming the DIR and what it lacks.
            try (Client plain = Client.connect(cluster.dirAddress(), ClientOptions.builder().retryWindowMs(0)
                    .build())) {
                assertThat(cluster.dirAddress().toString()).startsWith("pbrpcs://");
                assertThatThrownBy(plain::listVolumes).isInstanceOf(XtreemFSException.class)
                        .hasMessageContaining(cluster.dirAddress().toString())
                        .hasMessageContaining("no TLS configuration")
                        .satisfies(error -> assertThat(((XtreemFSException) error).errorType())
                                .isEqualTo(ErrorType.AUTH_FAILED));
            }
            LocalCluster.TlsFiles files = cluster.launcher().tlsFiles().orElseThrow();
            RpcTls withoutCertificate = RpcTls.client(files.authority(), Optional.empty(), Optional.empty());
            try (Client anonymous = Client.connect(cluster.dirAddress(), ClientOptions.builder().retryWindowMs(0)
                    .connectTimeoutMs(3_000).requestTimeoutMs(3_000).tls(withoutCertificate).build())) {
                assertThatThrownBy(anonymous::listVolumes).as("the servers require a client certificate")
                        .isInstanceOf(XtreemFSException.class);
            }
            assertThat(client.listVolumes()).extracting(org.xtreemfs.interfaces.mrc.Volume::getName).contains("secure");
        }
    }

    @Test
    void theMrcTakesTheCallerFromTheCertificateAndIgnoresForgedCredentials() throws Exception {
        try (TestCluster cluster = TestCluster.startTls(1, ClusterDescription.Tls.CLIENT_CERTIFICATES,
                Map.of("mrc.identity.fromCertificate", "true"));
                Client admin = cluster.client()) {
            Volumes.create(admin, "shared", 1);
            Volume asRoot = admin.openVolume("shared");
            asRoot.mkdir("/alice", 0700);
            asRoot.chown("/alice", 1001, 1001);

            LocalCluster launcher = cluster.launcher();
            TestAuthority.Issued alice = launcher.issueUserCertificate("alice", "alice", 1001, 1001);
            TestAuthority.Issued bob = launcher.issueUserCertificate("bob", "bob", 1002, 1002);
            UserCredentials forgedRoot = ClientOptions.user("root", 0, 0, List.of());
            try (Client asAlice = userClient(cluster, alice, forgedRoot);
                    Client bobClaimingRoot = userClient(cluster, bob, forgedRoot);
                    Client bobClaimingAlice = userClient(cluster, bob, ClientOptions.user("alice", 1001, 1001,
                            List.of()))) {
                Volume alicesView = asAlice.openVolume("shared");
                try (FileHandle file = alicesView.open("/alice/notes", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0600)) {
                    byte[] text = "alice's".getBytes(StandardCharsets.UTF_8);
                    file.write(0, text, 0, text.length);
                }
                assertThat(alicesView.getattr("/alice/notes").getUid())
                        .as("the file belongs to the certificate's uid, not the uid 0 the request stated")
                        .isEqualTo(1001);
                for (Client bobs : List.of(bobClaimingRoot, bobClaimingAlice)) {
                    Volume bobsView = bobs.openVolume("shared");
                    assertThatThrownBy(() -> bobsView.getattr("/alice/notes"))
                            .as("bob's certificate counts, whatever his requests claim")
                            .isInstanceOfSatisfying(XtreemFSException.class,
                                    error -> assertThat(error.errno()).isEqualTo(Errno.EACCES));
                    assertThatThrownBy(() -> bobsView.mkdir("/alice/not-bobs-to-make", 0755).getUid())
                            .isInstanceOfSatisfying(XtreemFSException.class,
                                    error -> assertThat(error.errno()).isEqualTo(Errno.EACCES));
                }
            }
        }
    }

    private static Client userClient(TestCluster cluster, TestAuthority.Issued certificate,
            UserCredentials stated) {
        LocalCluster.TlsFiles files = cluster.launcher().tlsFiles().orElseThrow();
        return Client.connect(cluster.dirAddress(), ClientOptions.builder().userCredentials(stated)
                .tls(LocalCluster.clientTls(files.authority(), certificate)).requestTimeoutMs(15_000)
                .retryWindowMs(0).build());
    }
}
