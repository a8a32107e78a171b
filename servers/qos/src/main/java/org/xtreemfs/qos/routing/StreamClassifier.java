package org.xtreemfs.qos.routing;

import java.util.Objects;

/**
 * Classifies the request stream of one open file. A request "follows" when its offset lies within
 * {@code windowBytes} of where the previous request ended (the window absorbs reordering among a few
 * outstanding requests). The stream turns SEQUENTIAL after {@code confirmRequests} following requests in a row
 * and back to RANDOM after as many non-following ones, so one stray request does not flip the route. A new
 * stream starts RANDOM. Immutable: {@link #observe} returns the next classifier.
 */
public record StreamClassifier(
        long windowBytes, int confirmRequests, long nextOffsetBytes, int followRun, int jumpRun,
        AccessPattern pattern) {
    /** What clients use (FAST scenario's {@code classifier.window.kib} and {@code classifier.confirm}). */
    public static final long WINDOW_BYTES_DEFAULT = 64 * 1024;
    public static final int CONFIRM_REQUESTS_DEFAULT = 2;

    public StreamClassifier {
        if (windowBytes < 0 || confirmRequests < 1) {
            throw new IllegalArgumentException("need windowBytes >= 0 and confirmRequests >= 1");
        }
        Objects.requireNonNull(pattern, "pattern");
    }

    public static StreamClassifier start(long windowBytes, int confirmRequests) {
        return new StreamClassifier(windowBytes, confirmRequests, -1, 0, 0, AccessPattern.RANDOM);
    }

    public StreamClassifier observe(long offsetBytes, long lengthBytes) {
        if (offsetBytes < 0 || lengthBytes <= 0) {
            throw new IllegalArgumentException("need offsetBytes >= 0 and lengthBytes > 0");
        }
        boolean follows = nextOffsetBytes >= 0 && Math.abs(offsetBytes - nextOffsetBytes) <= windowBytes;
        int nextFollowRun = follows ? Math.min(followRun + 1, confirmRequests) : 0;
        int nextJumpRun = follows ? 0 : Math.min(jumpRun + 1, confirmRequests);
        AccessPattern nextPattern = pattern;
        if (nextFollowRun >= confirmRequests) {
            nextPattern = AccessPattern.SEQUENTIAL;
        } else if (nextJumpRun >= confirmRequests) {
            nextPattern = AccessPattern.RANDOM;
        }
        return new StreamClassifier(windowBytes, confirmRequests, offsetBytes + lengthBytes, nextFollowRun,
                nextJumpRun, nextPattern);
    }
}
