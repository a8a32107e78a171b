package org.xtreemfs.foundation.capability;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.xtreemfs.interfaces.common.XCap;

/**
 * HMAC-SHA256 over the capability's fields in field order (the protobuf encoding of the XCap with its
 * signature cleared; Java's encoding of these scalar fields is deterministic). Thread-safe.
 */
public final class XCapSigner {
    private static final String ALGORITHM = "HmacSHA256";
    private final SecretKeySpec key;
    /**
     * One initialized Mac per thread: Mac.getInstance + init (provider lookup, key schedule) cost more than
     * the HMAC of a capability itself, and every OSD request checks one. doFinal resets the Mac for reuse.
     */
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);

    /** Shortest shared secret accepted: shorter ones make the HMAC key guessable. */
    public static final int SECRET_LENGTH_MIN = 8;

    public XCapSigner(String sharedSecret) {
        if (sharedSecret == null || sharedSecret.length() < SECRET_LENGTH_MIN) {
            throw new IllegalArgumentException("capability secret must have at least " + SECRET_LENGTH_MIN
                    + " characters");
        }
        this.key = new SecretKeySpec(sharedSecret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
    }

    public XCap sign(XCap capability) {
        XCap unsigned = capability.toBuilder().clearSignature().build();
        return unsigned.toBuilder().setSignature(ByteString.copyFrom(mac(unsigned))).build();
    }

    /**
     * True when the signature matches the fields; expiry is checked separately by the caller's clock. Computes the
     * HMAC every time and remembers nothing: a caller that sees the same capability again and again keeps what it
     * verified itself, with what it derived from it (the OSD's {@code PreprocessingStage.Checked}, keyed by the whole
     * credentials), so there is one memo of a verification, not two.
     */
    public boolean verify(XCap capability) {
        byte[] expected = mac(capability.toBuilder().clearSignature().build());
        return MessageDigest.isEqual(expected, capability.getSignature().toByteArray());
    }

    private byte[] mac(XCap unsigned) {
        return macs.get().doFinal(unsigned.toByteArray());
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }
}
