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

    @Option(names = "--retries", paramLabel = "N", defaultValue = "100",
            description = "At most N attempts per request after no answer or an overloaded server, the first"
                    + " included (default: ${DEFAULT-VALUE}, i.e. the window decides).")
    int retryAttemptsMax;

    @Option(names = "--retry-window-ms", paramLabel = "MS", defaultValue = "60000",
            description = "Attempts of a request start within MS of the first, so a server restart shorter than"
                    + " that is only a pause; changes are applied once by the MRC however often they are sent"
                    + " (default: ${DEFAULT-VALUE}; 0: no retries).")
    long retryWindowMs;

    /** A client for the DIR the URL names, acting as the user running the tool. */
    Client connect(VolumeUrl url) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("--timeout-ms: '" + timeoutMs + "' must be positive");
        }
        if (retryAttemptsMax < 1 || retryAttemptsMax > 100) {
            throw new IllegalArgumentException("--retries: '" + retryAttemptsMax + "' must be in 1..100");
        }
        if (retryWindowMs < 0) {
            throw new IllegalArgumentException("--retry-window-ms: '" + retryWindowMs + "' must not be negative");
        }
        ClientOptions options = ClientOptions.builder()
                .requestTimeoutMs(timeoutMs)
                .connectTimeoutMs((int) Math.min(timeoutMs, 5_000))
                .retryAttemptsMax(retryAttemptsMax)
                .retryWindowMs(retryWindowMs)
                .metadataCacheTtlMs(0)
                .build();
        return Client.connect(url.dirAddress(), options);
    }
}
