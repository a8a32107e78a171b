package org.xtreemfs.mrc.capability;

import java.util.Optional;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.mrc.metadata.FileIds;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * Issues, verifies and renews XCaps. A capability is valid while its HMAC matches its fields and the
 * wall clock is before {@code expires_ms}; the MRC and every OSD share the secret.
 *
 * <p>Every capability this class signs carries the volume's reservation share as the caller read it from
 * the ledger (on the metadata thread, in apply): {@code qos_share} set for a reserved volume, cleared for
 * one without reservation. Renewal and truncation replace the share rather than copy the old one, so a
 * reservation changed online reaches the OSDs with the next capability a client obtains.
 */
public final class CapabilityIssuer {
    private final XCapSigner signer;
    private final Clock clock;
    private final long timeoutMs;

    public CapabilityIssuer(XCapSigner signer, Clock clock, long timeoutMs) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("capability timeout must be positive: " + timeoutMs);
        }
        this.signer = signer;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
    }

    public XCap issue(String volumeId, long inode, AccessMode accessMode, int truncateEpoch, String clientIdentity,
            Optional<VolumeShare> share) {
        return signer.sign(withShare(XCap.newBuilder(), share)
                .setFileId(FileIds.fileId(volumeId, inode))
                .setVolumeId(volumeId)
                .setAccessMode(accessMode)
                .setExpiresMs(clock.wallClockMillis() + timeoutMs)
                .setClientIdentity(clientIdentity)
                .setTruncateEpoch(truncateEpoch)
                .build());
    }

    public FileCredentials credentials(XCap capability, XLocSet xlocs) {
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(xlocs).build();
    }

    /**
     * Checks signature and expiry; AUTH_FAILED naming the reason otherwise. With {@code requireWrite} a
     * read-only capability is rejected too.
     */
    public FileIds.ParsedFileId verify(XCap capability, boolean requireWrite) throws RpcException {
        if (capability.getSignature().isEmpty()) {
            throw RpcException.authFailed("capability for '" + capability.getFileId() + "' is unsigned");
        }
        if (!signer.verify(capability)) {
            throw RpcException.authFailed("capability for '" + capability.getFileId()
                    + "' has an invalid signature (tampered or signed with another secret)");
        }
        long now = clock.wallClockMillis();
        if (Long.compareUnsigned(capability.getExpiresMs(), now) <= 0) {
            throw RpcException.authFailed("capability for '" + capability.getFileId() + "' expired at "
                    + capability.getExpiresMs() + " (now " + now + ")");
        }
        if (requireWrite && capability.getAccessMode() != AccessMode.ACCESS_MODE_WRITE
                && capability.getAccessMode() != AccessMode.ACCESS_MODE_READ_WRITE) {
            throw RpcException.authFailed("capability for '" + capability.getFileId() + "' does not allow writing ("
                    + capability.getAccessMode() + ")");
        }
        FileIds.ParsedFileId fileId = FileIds.parse(capability.getFileId());
        if (!fileId.volumeId().equals(capability.getVolumeId())) {
            throw RpcException.authFailed("capability names file '" + capability.getFileId() + "' but volume '"
                    + capability.getVolumeId() + "'");
        }
        return fileId;
    }

    /** The same capability with a new expiry and the volume's current share, signed again; the caller verified it first. */
    public XCap renew(XCap capability, Optional<VolumeShare> share) {
        return signer.sign(withShare(capability.toBuilder(), share)
                .setExpiresMs(clock.wallClockMillis() + timeoutMs).build());
    }

    /** The same capability under a new truncate epoch, with a fresh expiry and the volume's current share. */
    public XCap withTruncateEpoch(XCap capability, int truncateEpoch, Optional<VolumeShare> share) {
        return signer.sign(withShare(capability.toBuilder(), share).setTruncateEpoch(truncateEpoch)
                .setExpiresMs(clock.wallClockMillis() + timeoutMs).build());
    }

    private static XCap.Builder withShare(XCap.Builder capability, Optional<VolumeShare> share) {
        return share.isPresent() ? capability.setQosShare(QosWire.toWire(share.get())) : capability.clearQosShare();
    }
}
