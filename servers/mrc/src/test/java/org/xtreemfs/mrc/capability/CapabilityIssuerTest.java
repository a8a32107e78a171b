package org.xtreemfs.mrc.capability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.rpc.ErrorType;

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
        XCap capability = issuer.issue("vol-id", 42, AccessMode.ACCESS_MODE_WRITE, 3, "client");
        assertThat(capability.getFileId()).isEqualTo("vol-id:42");
        assertThat(capability.getExpiresMs()).isEqualTo(clock.wallClockMillis() + 60_000);
        assertThat(capability.getTruncateEpoch()).isEqualTo(3);
        assertThat(issuer.verify(capability, true).inode()).isEqualTo(42);
    }

    @Test
    void expiredTamperedAndReadOnlyCapabilitiesFail() {
        // Expiry, any changed field, and a read cap used for writing are AUTH_FAILED naming the reason.
        XCap capability = issuer.issue("vol-id", 42, AccessMode.ACCESS_MODE_READ, 0, "client");
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
        XCap capability = issuer.issue("vol-id", 7, AccessMode.ACCESS_MODE_READ_WRITE, 2, "client");
        clock.advanceMillis(30_000);
        XCap renewed = issuer.renew(capability);
        clock.advanceMillis(40_000);
        issuer.verify(renewed, true);
        assertThat(renewed.toBuilder().clearExpiresMs().clearSignature().build())
                .isEqualTo(capability.toBuilder().clearExpiresMs().clearSignature().build());
        assertThat(issuer.withTruncateEpoch(renewed, 3).getTruncateEpoch()).isEqualTo(3);
    }
}
