package org.xtreemfs.sim;

import java.util.SplittableRandom;
import org.xtreemfs.qos.device.IoKind;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.routing.AccessPattern;

/**
 * Request generator of one tenant: sequential (wrapping at the region end) or uniformly random, aligned to the
 * request size, inside {@code [regionStartBytes, regionStartBytes + regionBytes)}.
 */
final class Workload {
    record Spec(AccessPattern pattern, IoKind kind, long requestBytes, long regionStartBytes, long regionBytes) {
        Spec {
            if (requestBytes <= 0 || regionBytes < requestBytes || regionStartBytes < 0) {
                throw new IllegalArgumentException("need 0 < requestBytes <= regionBytes and regionStartBytes >= 0");
            }
        }
    }

    private final Spec spec;
    private final SplittableRandom random;
    private long nextOffsetBytes;

    Workload(Spec spec, long seed) {
        this.spec = spec;
        this.random = new SplittableRandom(seed);
        this.nextOffsetBytes = spec.regionStartBytes();
    }

    Spec spec() {
        return spec;
    }

    IoRequest next() {
        long slots = spec.regionBytes() / spec.requestBytes();
        long offsetBytes;
        if (spec.pattern() == AccessPattern.RANDOM) {
            offsetBytes = spec.regionStartBytes() + random.nextLong(slots) * spec.requestBytes();
        } else {
            if (nextOffsetBytes + spec.requestBytes() > spec.regionStartBytes() + slots * spec.requestBytes()) {
                nextOffsetBytes = spec.regionStartBytes();
            }
            offsetBytes = nextOffsetBytes;
            nextOffsetBytes += spec.requestBytes();
        }
        return new IoRequest(offsetBytes, spec.requestBytes(), spec.kind());
    }

    /** Exponential inter-arrival time for an open-loop tenant issuing requestsPerSecond on average. */
    long nextInterArrivalNanos(double requestsPerSecond) {
        double uniform = 1.0 - random.nextDouble();
        return Math.max(1, Math.round(-Math.log(uniform) / requestsPerSecond * 1e9));
    }
}
