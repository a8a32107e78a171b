package org.xtreemfs.client;

import java.util.List;
import org.xtreemfs.foundation.rpc.RpcTls;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * Settings of a {@link Client}, validated on construction; every error names the setting. Build with
 * {@link #builder()}; {@link #defaults()} is what tools use.
 *
 * @param requestTimeoutMs deadline of one RPC attempt
 * @param connectTimeoutMs deadline to open a TCP connection
 * @param retryAttemptsMax attempts per call, the first included, for transient errors (OVERLOADED always;
 *     transport errors only for calls that may be repeated: idempotent ones and MRC changes, sent exactly once);
 *     the default (100) leaves the bound to {@code retryWindowMs}
 * @param retryBackoffInitialMs delay before the second attempt; doubled per attempt
 * @param retryBackoffMaxMs upper bound of the delay between attempts
 * @param retryWindowMs attempts start within this long of the first, so a server restart shorter than it is
 *     only a pause (0: no retries)
 * @param metadataCacheTtlMs how long a getattr result is reused; 0 disables the cache
 * @param metadataCacheEntriesMax bound of the metadata cache
 * @param objectRequestsInFlightMax bound of concurrent OSD data requests of this client
 * @param capabilityRenewMarginMs renew an XCap when it expires within this margin
 * @param uuidCacheTtlMs how long a service UUID's address is reused
 * @param readdirPageEntries entries requested per readdir page
 * @param userCredentials the identity sent with every request (an MRC with mrc.identity.fromCertificate ignores
 *     it and takes the client certificate's)
 * @param tls TLS for the servers that speak it ({@link RpcTls#client}: the cluster's CA, optionally a client
 *     certificate): those registered as pbrpcs, and a DIR given without a scheme; null: plain TCP only (a TLS
 *     server is then refused at once, naming it).
 */
public record ClientOptions(long requestTimeoutMs, int connectTimeoutMs, int retryAttemptsMax,
        long retryBackoffInitialMs, long retryBackoffMaxMs, long retryWindowMs, long metadataCacheTtlMs, int metadataCacheEntriesMax,
        int objectRequestsInFlightMax, long capabilityRenewMarginMs, long uuidCacheTtlMs, int readdirPageEntries,
        UserCredentials userCredentials, RpcTls tls) {

    public ClientOptions {
        requirePositive("requestTimeoutMs", requestTimeoutMs);
        requirePositive("connectTimeoutMs", connectTimeoutMs);
        requirePositive("retryAttemptsMax", retryAttemptsMax);
        requireAtMost("retryAttemptsMax", retryAttemptsMax, 100);
        requireNonNegative("retryBackoffInitialMs", retryBackoffInitialMs);
        requireNonNegative("retryBackoffMaxMs", retryBackoffMaxMs);
        if (retryBackoffMaxMs < retryBackoffInitialMs) {
            throw new IllegalArgumentException("retryBackoffMaxMs (" + retryBackoffMaxMs
                    + ") must not be below retryBackoffInitialMs (" + retryBackoffInitialMs + ")");
        }
        requireNonNegative("retryWindowMs", retryWindowMs);
        requireNonNegative("metadataCacheTtlMs", metadataCacheTtlMs);
        requirePositive("metadataCacheEntriesMax", metadataCacheEntriesMax);
        requirePositive("objectRequestsInFlightMax", objectRequestsInFlightMax);
        requireAtMost("objectRequestsInFlightMax", objectRequestsInFlightMax, 1024);
        requireNonNegative("capabilityRenewMarginMs", capabilityRenewMarginMs);
        requirePositive("uuidCacheTtlMs", uuidCacheTtlMs);
        requirePositive("readdirPageEntries", readdirPageEntries);
        if (userCredentials == null || userCredentials.getUsername().isEmpty()) {
            throw new IllegalArgumentException("userCredentials must name a user");
        }
    }

    public static ClientOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The identity of the user running this JVM (uid/gid from the OS where the JDK exposes them). */
    public static UserCredentials currentUser() {
        UserCredentials.Builder credentials = UserCredentials.newBuilder()
                .setUsername(System.getProperty("user.name", "nobody"));
        try {
            com.sun.security.auth.module.UnixSystem unix = new com.sun.security.auth.module.UnixSystem();
            credentials.setUid((int) unix.getUid()).setGid((int) unix.getGid());
            for (long group : unix.getGroups()) {
                if (group != unix.getGid()) {
                    credentials.addSupplementaryGids((int) group);
                }
            }
        } catch (LinkageError | RuntimeException notUnix) {
            // Not a Unix JDK: fall back to the unprivileged "nobody" ids rather than root.
            credentials.setUid(65534).setGid(65534);
        }
        return credentials.build();
    }

    /** A user identity for tests and tools: name, uid, gid and supplementary groups. */
    public static UserCredentials user(String username, int uid, int gid, List<Integer> supplementaryGids) {
        return UserCredentials.newBuilder().setUsername(username).setUid(uid).setGid(gid)
                .addAllSupplementaryGids(supplementaryGids).build();
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, got " + value);
        }
    }

    private static void requireAtMost(String name, long value, long max) {
        if (value > max) {
            throw new IllegalArgumentException(name + " must be at most " + max + ", got " + value);
        }
    }

    /** Mutable builder with the defaults documented in client/README.md. */
    public static final class Builder {
        private long requestTimeoutMs = 30_000;
        private int connectTimeoutMs = 5_000;
        private int retryAttemptsMax = 100;
        private long retryBackoffInitialMs = 50;
        private long retryBackoffMaxMs = 2_000;
        private long retryWindowMs = 60_000;
        private long metadataCacheTtlMs = 1_000;
        private int metadataCacheEntriesMax = 10_000;
        private int objectRequestsInFlightMax = 16;
        private long capabilityRenewMarginMs = 60_000;
        private long uuidCacheTtlMs = 60_000;
        private int readdirPageEntries = 1_024;
        private UserCredentials userCredentials;
        private RpcTls tls;

        public Builder requestTimeoutMs(long value) { requestTimeoutMs = value; return this; }
        public Builder connectTimeoutMs(int value) { connectTimeoutMs = value; return this; }
        public Builder retryAttemptsMax(int value) { retryAttemptsMax = value; return this; }
        public Builder retryBackoffInitialMs(long value) { retryBackoffInitialMs = value; return this; }
        public Builder retryBackoffMaxMs(long value) { retryBackoffMaxMs = value; return this; }
        public Builder retryWindowMs(long value) { retryWindowMs = value; return this; }
        public Builder metadataCacheTtlMs(long value) { metadataCacheTtlMs = value; return this; }
        public Builder metadataCacheEntriesMax(int value) { metadataCacheEntriesMax = value; return this; }
        public Builder objectRequestsInFlightMax(int value) { objectRequestsInFlightMax = value; return this; }
        public Builder capabilityRenewMarginMs(long value) { capabilityRenewMarginMs = value; return this; }
        public Builder uuidCacheTtlMs(long value) { uuidCacheTtlMs = value; return this; }
        public Builder readdirPageEntries(int value) { readdirPageEntries = value; return this; }
        public Builder userCredentials(UserCredentials value) { userCredentials = value; return this; }
        public Builder tls(RpcTls value) { tls = value; return this; }

        public ClientOptions build() {
            return new ClientOptions(requestTimeoutMs, connectTimeoutMs, retryAttemptsMax, retryBackoffInitialMs,
                    retryBackoffMaxMs, retryWindowMs, metadataCacheTtlMs, metadataCacheEntriesMax, objectRequestsInFlightMax,
                    capabilityRenewMarginMs, uuidCacheTtlMs, readdirPageEntries,
                    userCredentials != null ? userCredentials : currentUser(), tls);
        }
    }
}
