package org.xtreemfs.foundation.capability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.XCap;

class XCapSignerTest {
    private final XCapSigner signer = new XCapSigner("a shared secret");
    private final XCap capability = XCap.newBuilder().setFileId("vol1:42").setVolumeId("vol1")
            .setAccessMode(AccessMode.ACCESS_MODE_READ).setExpiresMs(1_000_000).setTruncateEpoch(3).build();

    // A signed capability verifies; changing any field afterwards breaks the signature.
    @Test
    void tamperingIsDetected() {
        XCap signed = signer.sign(capability);
        assertThat(signer.verify(signed)).isTrue();
        assertThat(signer.verify(signed.toBuilder().setAccessMode(AccessMode.ACCESS_MODE_READ_WRITE).build())).isFalse();
        assertThat(signer.verify(signed.toBuilder().setExpiresMs(2_000_000).build())).isFalse();
        assertThat(signer.verify(signed.toBuilder().setFileId("vol1:43").build())).isFalse();
        assertThat(signer.verify(capability)).isFalse();
    }

    // Verifying keeps no state: a capability verified before proves nothing for a copy with one field changed under
    // its signature (the OSD's one memo of verified credentials is PreprocessingStage's).
    @Test
    void aVerifiedCapabilityDoesNotVouchForAForgedCopyOfIt() {
        XCap known = signer.sign(capability);
        assertThat(signer.verify(known)).isTrue();
        assertThat(signer.verify(known)).isTrue();
        assertThat(signer.verify(known.toBuilder().setVolumeId("vol2").build())).isFalse();
        assertThat(signer.verify(known)).isTrue();
    }

    // A capability signed with another secret does not verify.
    @Test
    void otherSecretDoesNotVerify() {
        assertThat(new XCapSigner("another secret").verify(signer.sign(capability))).isFalse();
        assertThatThrownBy(() -> new XCapSigner("short")).hasMessageContaining("8 characters");
    }
}
