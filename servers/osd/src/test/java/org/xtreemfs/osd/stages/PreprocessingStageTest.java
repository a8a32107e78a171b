package org.xtreemfs.osd.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.QosShare;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.model.VolumeShare;

class PreprocessingStageTest {
    private static final String SECRET = "unit-test-secret";
    private static final long NOW_MS = 1_767_225_600_000L;
    private static final String FILE = "vol-a:7";
    private final XCapSigner signer = new XCapSigner(SECRET);

    private XCap capability(String fileId, AccessMode mode, long expiresMs) {
        return signer.sign(XCap.newBuilder().setFileId(fileId).setVolumeId("vol-a").setAccessMode(mode)
                .setExpiresMs(expiresMs).setTruncateEpoch(4).build());
    }

    private static FileCredentials credentials(XCap capability, String... osds) {
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder().addReplicas(
                Replica.newBuilder().addAllOsdUuids(java.util.List.of(osds)).setStripingPolicy(
                        StripingPolicy.newBuilder().setObjectSizeBytes(65536).setWidth(osds.length))))
                .build();
    }

    private static OsdRequest write(FileCredentials credentials, String fileId) {
        return new OsdRequest.TruncateFile(null, credentials, fileId, 10);
    }

    private static OsdRequest read(FileCredentials credentials, String fileId) {
        return new OsdRequest.GetFileSize(null, credentials, fileId);
    }

    private AuthorizedRequest authorize(OsdRequest request) throws RpcException {
        return PreprocessingStage.authorize(request, "osd-2", signer, NOW_MS);
    }

    private void assertAuthFailed(OsdRequest request, String reason) {
        assertThatThrownBy(() -> authorize(request)).isInstanceOfSatisfying(RpcException.class,
                e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED)).hasMessageContaining(reason);
    }

    @Test
    void aValidCapabilityYieldsVolumeEpochAndStripePosition() throws RpcException {
        // Proves an accepted request carries the volume for the QoS stage and this OSD's stripe position.
        FileCredentials credentials = credentials(capability(FILE, AccessMode.ACCESS_MODE_READ_WRITE, NOW_MS + 1),
                "osd-1", "osd-2", "osd-3");
        AuthorizedRequest authorized = authorize(write(credentials, FILE));
        assertThat(authorized.volumeId()).isEqualTo("vol-a");
        assertThat(authorized.truncateEpoch()).isEqualTo(4);
        assertThat(authorized.layout()).isEqualTo(new StripeLayout(65536, 3, 1));
    }

    @Test
    void theVolumesShareComesFromTheSignedCapabilityAndItsAbsenceMeansBestEffort() throws RpcException {
        // Proves the QoS stage learns a volume's reservation share from the capability, with no metadata lookup.
        XCap reserved = signer.sign(XCap.newBuilder().setFileId(FILE).setVolumeId("vol-a")
                .setAccessMode(AccessMode.ACCESS_MODE_READ).setExpiresMs(NOW_MS + 1)
                .setQosShare(QosShare.newBuilder().setType(QosType.RANDOM).setIops(250)).build());
        assertThat(authorize(read(credentials(reserved, "osd-2"), FILE)).share()).isEqualTo(VolumeShare.random(250));
        XCap sequential = signer.sign(reserved.toBuilder().clearSignature().setQosShare(QosShare.newBuilder()
                .setType(QosType.SEQUENTIAL).setThroughputBytesPerSecond(40_000_000)).build());
        assertThat(authorize(read(credentials(sequential, "osd-2"), FILE)).share())
                .isEqualTo(VolumeShare.sequential(40_000_000));
        XCap none = capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 1);
        assertThat(authorize(read(credentials(none, "osd-2"), FILE)).share()).isEqualTo(VolumeShare.BEST_EFFORT);
        XCap unspecified = signer.sign(none.toBuilder().clearSignature().setQosShare(QosShare.newBuilder()
                .setIops(5)).build());
        assertThat(authorize(read(credentials(unspecified, "osd-2"), FILE)).share())
                .isEqualTo(VolumeShare.BEST_EFFORT);
    }

    @Test
    void aMalformedShareIsServedBestEffortAndTheRequestStillAuthorized() throws RpcException {
        // Proves a signed but malformed share (the codec refuses it) neither fails the request nor reserves.
        XCap base = capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 1);
        for (QosShare malformed : java.util.List.of(
                QosShare.newBuilder().setType(QosType.SEQUENTIAL).build(),
                QosShare.newBuilder().setType(QosType.RANDOM).setIops(-1L).build(),
                QosShare.newBuilder().setType(QosType.SEQUENTIAL).setThroughputBytesPerSecond(1 << 20).setIops(5)
                        .build(),
                QosShare.newBuilder().setType(QosType.COLD).setIops(5).build(),
                QosShare.newBuilder().setTypeValue(99).setIops(5).build())) {
            XCap capability = signer.sign(base.toBuilder().clearSignature().setQosShare(malformed).build());
            AuthorizedRequest authorized = authorize(read(credentials(capability, "osd-1", "osd-2"), FILE));
            assertThat(authorized.share()).as("share %s", malformed).isEqualTo(VolumeShare.BEST_EFFORT);
            assertThat(authorized.volumeId()).isEqualTo("vol-a");
            assertThat(authorized.layout()).isEqualTo(new StripeLayout(65536, 2, 1));
        }
    }

    @Test
    void expiredCapabilitiesAreRejected() {
        // Proves a capability is refused from its expiry instant on, naming the expiry.
        FileCredentials credentials = credentials(capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS), "osd-2");
        assertAuthFailed(read(credentials, FILE), "expired at " + NOW_MS);
    }

    @Test
    void tamperedAndUnsignedCapabilitiesAreRejected() {
        // Proves changing any signed field, signing with another secret, or not signing is detected.
        XCap valid = capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 60_000);
        XCap upgraded = valid.toBuilder().setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).build();
        assertAuthFailed(write(credentials(upgraded, "osd-2"), FILE), "invalid signature");
        XCap foreign = new XCapSigner("another-secret").sign(valid);
        assertAuthFailed(read(credentials(foreign, "osd-2"), FILE), "invalid signature");
        XCap unsigned = valid.toBuilder().setSignature(ByteString.EMPTY).build();
        assertAuthFailed(read(credentials(unsigned, "osd-2"), FILE), "unsigned");
        assertAuthFailed(read(FileCredentials.getDefaultInstance(), FILE), "no capability");
    }

    @Test
    void aCapabilityForAnotherFileIsRejected() {
        // Proves a capability only opens the file it names.
        FileCredentials credentials = credentials(capability("vol-a:8", AccessMode.ACCESS_MODE_READ_WRITE,
                NOW_MS + 60_000), "osd-2");
        assertAuthFailed(read(credentials, FILE), "is for file vol-a:8 but the request is for file " + FILE);
    }

    @Test
    void writesTruncatesAndUnlinksNeedWriteAccess() throws RpcException {
        // Proves a read-only capability reads but cannot write, truncate or unlink.
        FileCredentials credentials = credentials(capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 60_000),
                "osd-2");
        assertThat(authorize(read(credentials, FILE)).fileId()).isEqualTo(FILE);
        assertAuthFailed(write(credentials, FILE), "needs write access");
        assertAuthFailed(new OsdRequest.UnlinkFile(null, credentials, FILE), "needs write access");
    }

    @Test
    void anXLocWithoutThisOsdIsAnInvalidArgument() {
        // Proves the OSD refuses requests for files not striped onto it, naming its UUID.
        FileCredentials credentials = credentials(capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 60_000),
                "osd-1", "osd-3");
        assertThatThrownBy(() -> authorize(read(credentials, FILE))).isInstanceOfSatisfying(RpcException.class,
                e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS)).hasMessageContaining("osd-2");
    }

    @Test
    void withZeroThreadsTheCheckRunsOnTheSubmittingThreadAndFailuresReachTheCaller() throws RpcException {
        // Proves the inline mode (the default) hands an authorized request on before submit returns, on the
        // caller's thread, and throws AUTH_FAILED to the caller (the network thread fails the call with it).
        java.util.List<Thread> nextThreads = new java.util.ArrayList<>();
        try (PreprocessingStage stage = new PreprocessingStage("osd-2", signer,
                new org.xtreemfs.foundation.clock.ManualClock(NOW_MS), 0, 1, request -> nextThreads.add(
                        Thread.currentThread()))) {
            stage.submit(read(credentials(capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 1000), "osd-2"),
                    FILE));
            assertThat(nextThreads).containsExactly(Thread.currentThread());
            assertThatThrownBy(() -> stage.submit(read(credentials(capability(FILE, AccessMode.ACCESS_MODE_READ,
                    NOW_MS - 1), "osd-2"), FILE))).isInstanceOfSatisfying(RpcException.class,
                    e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED)).hasMessageContaining("expired");
            assertThat(stage.metrics().handledCount()).isEqualTo(1);
            assertThat(stage.metrics().failedCount()).isEqualTo(1);
        }
    }

    // A filling replica (osd-2 between osd-1 and osd-3): its copies and their reads at the source are charged to the
    // volume's best-effort fill flow whatever the volume's reservation; a client's read there is REDIRECT to the
    // tail; a copy at a member that is not filling is refused.
    @Test
    void aReplicaFillIsABestEffortFlowAndAFillingReplicaServesNoReads() throws RpcException {
        XCap reserved = signer.sign(XCap.newBuilder().setFileId(FILE).setVolumeId("vol-a")
                .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).setExpiresMs(NOW_MS + 1)
                .setQosShare(QosShare.newBuilder().setType(QosType.RANDOM).setIops(250)).build());
        StripingPolicy striping = StripingPolicy.newBuilder().setObjectSizeBytes(65536).setWidth(1).build();
        FileCredentials chain = FileCredentials.newBuilder().setXcap(reserved).setXlocs(XLocSet.newBuilder()
                .setVersion(2)
                .addReplicas(Replica.newBuilder().addOsdUuids("osd-1").setStripingPolicy(striping))
                .addReplicas(Replica.newBuilder().addOsdUuids("osd-2").setStripingPolicy(striping).setFilling(true))
                .addReplicas(Replica.newBuilder().addOsdUuids("osd-3").setStripingPolicy(striping))).build();
        AuthorizedRequest copy = authorize(new OsdRequest.CopyObject(null, chain, FILE, 0, 65536));
        assertThat(copy.volumeId()).isEqualTo("vol-a/fill");
        assertThat(copy.share()).isEqualTo(VolumeShare.BEST_EFFORT);
        assertThat(copy.chain().fillSourceUuid()).contains("osd-1");
        assertThat(copy.chain().xlocVersion()).isEqualTo(2);
        assertThatThrownBy(() -> authorize(new OsdRequest.ReadObject(null, chain, FILE, 0, 0, 10)))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(ErrorType.REDIRECT);
                    assertThat(e.getMessage()).contains("still being filled").contains("osd-3");
                });
        AuthorizedRequest fillRead = PreprocessingStage.authorize(new OsdRequest.ReadObject(null, chain, FILE, 0, 0,
                10, true), "osd-1", signer, NOW_MS);
        assertThat(fillRead.volumeId()).isEqualTo("vol-a/fill");
        assertThat(PreprocessingStage.authorize(new OsdRequest.ReadObject(null, chain, FILE, 0, 0, 10), "osd-1",
                signer, NOW_MS).share()).isEqualTo(VolumeShare.random(250));
        assertThatThrownBy(() -> PreprocessingStage.authorize(new OsdRequest.CopyObject(null, chain, FILE, 0, 65536),
                "osd-3", signer, NOW_MS)).isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS));
    }

    @Test
    void credentialsCheckedBeforeStillHaveTheirExpiryFileAndAccessModeCheckedOnEveryRequest() throws RpcException {
        // Proves the stage's memo of checked credentials (issue 10: one parse and one HMAC per file, not per request)
        // keeps every per-request rule: a capability that passed once is refused once it expired, for another file,
        // and for a write when it grants reads only; and the memo's answers equal the full check's.
        org.xtreemfs.foundation.clock.ManualClock clock = new org.xtreemfs.foundation.clock.ManualClock(NOW_MS);
        java.util.List<AuthorizedRequest> passed = new java.util.ArrayList<>();
        FileCredentials readOnly = credentials(capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 1000),
                "osd-1", "osd-2");
        try (PreprocessingStage stage = new PreprocessingStage("osd-2", signer, clock, 0, 1, passed::add)) {
            stage.submit(read(readOnly, FILE));
            stage.submit(read(readOnly, FILE));
            AuthorizedRequest full = authorize(read(readOnly, FILE));
            for (AuthorizedRequest memo : passed) {
                assertThat(memo.volumeId()).isEqualTo(full.volumeId());
                assertThat(memo.share()).isEqualTo(full.share());
                assertThat(memo.truncateEpoch()).isEqualTo(full.truncateEpoch());
                assertThat(memo.layout()).isEqualTo(full.layout());
                assertThat(memo.chain()).isEqualTo(full.chain());
            }
            assertThatThrownBy(() -> stage.submit(write(readOnly, FILE))).isInstanceOfSatisfying(RpcException.class,
                    e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED))
                    .hasMessageContaining("needs write access");
            assertThatThrownBy(() -> stage.submit(read(readOnly, "vol-a:8"))).isInstanceOfSatisfying(
                    RpcException.class, e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED))
                    .hasMessageContaining("is for file " + FILE);
            clock.advanceMillis(1000);
            assertThatThrownBy(() -> stage.submit(read(readOnly, FILE))).isInstanceOfSatisfying(RpcException.class,
                    e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED)).hasMessageContaining("expired");
            assertThat(passed).hasSize(2);
        }
    }

    @Test
    void aTamperedCapabilityIsRefusedEveryTimeAndTheVolumeIdIsOneInstancePerVolume() throws RpcException {
        // Proves refused credentials are never remembered as checked, and that requests of different files of one
        // volume carry the same volume id instance (the QoS stage's and the accounting's maps then compare by
        // identity, not character by character).
        java.util.List<AuthorizedRequest> passed = new java.util.ArrayList<>();
        XCap valid = capability(FILE, AccessMode.ACCESS_MODE_READ_WRITE, NOW_MS + 1000);
        FileCredentials tampered = credentials(valid.toBuilder().setTruncateEpoch(5).build(), "osd-2");
        try (PreprocessingStage stage = new PreprocessingStage("osd-2", signer,
                new org.xtreemfs.foundation.clock.ManualClock(NOW_MS), 0, 1, passed::add)) {
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> stage.submit(read(tampered, FILE))).isInstanceOfSatisfying(
                        RpcException.class, e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED))
                        .hasMessageContaining("invalid signature");
            }
            FileCredentials first = credentials(valid, "osd-2");
            XCap other = signer.sign(XCap.newBuilder().setFileId("vol-a:8").setVolumeId(new String("vol-a"))
                    .setAccessMode(AccessMode.ACCESS_MODE_READ).setExpiresMs(NOW_MS + 1000).build());
            FileCredentials second = credentials(other, "osd-2");
            stage.submit(read(first, FILE));
            stage.submit(read(second, "vol-a:8"));
            stage.submit(read(first, FILE));
            stage.submit(read(second, "vol-a:8"));
            assertThat(passed).hasSize(4);
            assertThat(passed.get(0).volumeId()).isEqualTo("vol-a");
            assertThat(passed).allSatisfy(each -> assertThat(each.volumeId()).isSameAs(passed.get(0).volumeId()));
        }
    }

    @Test
    void rememberedCredentialsStayBoundedAndNeverVouchForAForgedCopy() throws RpcException {
        // Proves the stage's memo, the OSD's one memo of a verified signature (XCapSigner keeps none), stays within
        // its bound however many files pass, and that a copy of remembered credentials with a field changed under
        // the same signature is verified in full and refused, before and after the memo starts over.
        java.util.List<AuthorizedRequest> passed = new java.util.ArrayList<>();
        try (PreprocessingStage stage = new PreprocessingStage("osd-2", signer,
                new org.xtreemfs.foundation.clock.ManualClock(NOW_MS), 0, 1, passed::add)) {
            FileCredentials known = credentials(capability(FILE, AccessMode.ACCESS_MODE_READ, NOW_MS + 1000), "osd-2");
            FileCredentials forged = credentials(known.getXcap().toBuilder()
                    .setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).build(), "osd-2");
            for (int i = 0; i < PreprocessingStage.CHECKED_CREDENTIALS_MAX + 10; i++) {
                String fileId = "vol-a:" + (1000 + i);
                stage.submit(read(credentials(capability(fileId, AccessMode.ACCESS_MODE_READ, NOW_MS + 1000), "osd-2"),
                        fileId));
                assertThat(stage.checkedCredentialsCount()).isBetween(1, PreprocessingStage.CHECKED_CREDENTIALS_MAX);
                if (i % 1000 == 0) {
                    stage.submit(read(known, FILE));
                    assertThatThrownBy(() -> stage.submit(write(forged, FILE))).isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED))
                            .hasMessageContaining("invalid signature");
                }
            }
            assertThat(passed).hasSize(PreprocessingStage.CHECKED_CREDENTIALS_MAX + 10 + 5);
        }
    }
}
