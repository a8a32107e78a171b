package org.xtreemfs.client.tools;

import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.VolumeUrl;
import picocli.CommandLine.Option;

/** Options every tool that talks to the servers shares (a picocli mixin). */
public final class ConnectionOptions {
    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "15000",
            description = "Deadline of each request in milliseconds (default: ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--retries", paramLabel = "N", defaultValue = "3",
            description = "Attempts per request for transient errors, the first included (default: ${DEFAULT-VALUE}).")
    int retryAttemptsMax;

    /** A client for the DIR the URL names, acting as the user running the tool. */
    Client connect(VolumeUrl url) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("--timeout-ms: '" + timeoutMs + "' must be positive");
        }
        if (retryAttemptsMax < 1 || retryAttemptsMax > 100) {
            throw new IllegalArgumentException("--retries: '" + retryAttemptsMax + "' must be in 1..100");
        }
        ClientOptions options = ClientOptions.builder()
                .requestTimeoutMs(timeoutMs)
                .connectTimeoutMs((int) Math.min(timeoutMs, 5_000))
                .retryAttemptsMax(retryAttemptsMax)
                .metadataCacheTtlMs(0)
                .build();
        return Client.connect(url.dirAddress(), options);
    }
}
