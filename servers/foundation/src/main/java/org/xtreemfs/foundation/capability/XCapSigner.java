package org.xtreemfs.foundation.capability;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ConcurrentHashMap;
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

    /** Capabilities remembered as verified, by signature; about 300 bytes each. */
    static final int VERIFIED_KEPT_MAX = 4096;
    private final ConcurrentHashMap<ByteString, XCap> verified = new ConcurrentHashMap<>();

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
        return unsigned.toBuilder().setSignature(com.google.protobuf.ByteString.copyFrom(mac(unsigned))).build();
    }

    /**
     * True when the signature matches the fields; expiry is checked separately by the caller's clock. A capability
     * equal in every field to one verified before is accepted without computing the HMAC again: a client sends the
     * same XCap with every request of an open file, and the HMAC was a sixth of an OSD network thread's Java samples
     * under 4 KiB random reads (JFR, C1-compiled). Equality of the whole message makes a hit prove exactly what the
     * HMAC proved; a tampered copy carrying a known signature differs in a field and is computed and refused.
     */
    public boolean verify(XCap capability) {
        ByteString signature = capability.getSignature();
        XCap known = verified.get(signature);
        if (known != null && known.equals(capability)) {
            return true;
        }
        byte[] expected = mac(capability.toBuilder().clearSignature().build());
        boolean valid = MessageDigest.isEqual(expected, signature.toByteArray());
        if (valid) {
            if (verified.size() >= VERIFIED_KEPT_MAX) {
                verified.clear(); // bounded; the working set of open files fills it again at one HMAC each
            }
            verified.put(signature, capability);
        }
        return valid;
    }

    /** Capabilities kept as verified (at most {@link #VERIFIED_KEPT_MAX}). */
    int verifiedKeptCount() {
        return verified.size();
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
