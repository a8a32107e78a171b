package org.xtreemfs.mrc.capability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.VolumeShare;

class CapabilityIssuerTest {
    private final ManualClock clock = new ManualClock();
    private final CapabilityIssuer issuer = new CapabilityIssuer(new XCapSigner("secret-secret"), clock, 60_000);

    private static String authFailure(RpcException error) {
        assertThat(error.errorType()).isEqualTo(ErrorType.AUTH_FAILED);
        return error.getMessage();
    }

    @Test
    void issuedCapabilitiesCarryTheFileAndVerify() throws Exception {
        // A fresh cap names "<volume>:<inode>", expires after the timeout and verifies.
        XCap capability = issuer.issue("vol-id", 42, AccessMode.ACCESS_MODE_WRITE, 3, "client", Optional.empty());
        assertThat(capability.getFileId()).isEqualTo("vol-id:42");
        assertThat(capability.getExpiresMs()).isEqualTo(clock.wallClockMillis() + 60_000);
        assertThat(capability.getTruncateEpoch()).isEqualTo(3);
        assertThat(issuer.verify(capability, true).inode()).isEqualTo(42);
    }

    @Test
    void expiredTamperedAndReadOnlyCapabilitiesFail() {
        // Expiry, any changed field, and a read cap used for writing are AUTH_FAILED naming the reason.
        XCap capability = issuer.issue("vol-id", 42, AccessMode.ACCESS_MODE_READ, 0, "client", Optional.empty());
        assertThat(authFailure(catchThrowableOfType(RpcException.class, () -> issuer.verify(capability, true))))
                .contains("does not allow writing");
        XCap tampered = capability.toBuilder().setTruncateEpoch(9).build();
        assertThat(authFailure(catchThrowableOfType(RpcException.class, () -> issuer.verify(tampered, false))))
                .contains("invalid signature");
        clock.advanceMillis(60_000);
        assertThat(authFailure(catchThrowableOfType(RpcException.class, () -> issuer.verify(capability, false))))
                .contains("expired");
    }

    @Test
    void renewalExtendsExpiryAndKeepsEverythingElse() throws Exception {
        // A renewed cap verifies after the original's expiry and keeps file, mode and epoch.
        XCap capability = issuer.issue("vol-id", 7, AccessMode.ACCESS_MODE_READ_WRITE, 2, "client", Optional.empty());
        clock.advanceMillis(30_000);
        XCap renewed = issuer.renew(capability, Optional.empty());
        clock.advanceMillis(40_000);
        issuer.verify(renewed, true);
        assertThat(renewed.toBuilder().clearExpiresMs().clearSignature().build())
                .isEqualTo(capability.toBuilder().clearExpiresMs().clearSignature().build());
        assertThat(issuer.withTruncateEpoch(renewed, 3, Optional.empty()).getTruncateEpoch()).isEqualTo(3);
    }

    @Test
    void everySignedCapabilityCarriesTheShareItIsGivenNotTheOldOne() throws Exception {
        // Issue, renew and truncate each put the caller's current share into the signed cap: a grown share
        // replaces the old one, an absent share (reservation gone) clears it, and tampering with it is caught.
        VolumeShare before = new VolumeShare(ReservationType.SEQUENTIAL, 50L << 20, 0);
        VolumeShare after = new VolumeShare(ReservationType.SEQUENTIAL, 100L << 20, 0);
        XCap capability = issuer.issue("vol-id", 7, AccessMode.ACCESS_MODE_READ_WRITE, 2, "client",
                Optional.of(before));
        assertThat(QosWire.share(capability)).contains(before);
        XCap renewed = issuer.renew(capability, Optional.of(after));
        assertThat(QosWire.share(renewed)).contains(after);
        issuer.verify(renewed, true);
        assertThat(QosWire.share(issuer.withTruncateEpoch(capability, 3, Optional.of(after)))).contains(after);
        XCap cleared = issuer.renew(capability, Optional.empty());
        assertThat(cleared.hasQosShare()).isFalse();
        issuer.verify(cleared, false);
        XCap forged = capability.toBuilder().setQosShare(QosWire.toWire(after)).build();
        assertThat(authFailure(catchThrowableOfType(RpcException.class, () -> issuer.verify(forged, false))))
                .contains("invalid signature");
    }
}
