package org.xtreemfs.qos.wfq;

/**
 * How a request is charged, in the one cost unit of a queue. Always charge the payload length (a write's data,
 * a read's requested range), never the size of a header: the earlier prototype charged writes by their header
 * and so let writers through for free.
 */
public sealed interface CostRule {

    /** Cost of a request carrying {@code payloadBytes}; always >= 1. */
    long costOf(long payloadBytes);

    /** Sequential OSDs: cost is the payload in bytes. */
    record Bytes() implements CostRule {
        @Override
        public long costOf(long payloadBytes) {
            return Math.max(1, payloadBytes);
        }
    }

    /**
     * Random OSDs: cost in 4 KiB-equivalent I/Os. A request up to 4 KiB costs 1; every further
     * {@code equivalentBytesPerIo} (started) costs 1 more. With {@code equivalentBytesPerIo = 4096} this is
     * ceil(len / 4 KiB), right for SSDs whose IOPS scale with bytes; for an HDD use the bytes the disk transfers
     * in the time of one random I/O (media rate × random service time, about 1 MB), because a large random
     * request costs one positioning plus transfer, not one positioning per 4 KiB.
     */
    record FourKibIos(long equivalentBytesPerIo) implements CostRule {
        public static final long IO_BYTES = 4096;

        public FourKibIos {
            if (equivalentBytesPerIo < IO_BYTES) {
                throw new IllegalArgumentException("equivalentBytesPerIo must be >= 4096, was "
                        + equivalentBytesPerIo);
            }
        }

        @Override
        public long costOf(long payloadBytes) {
            long extraBytes = Math.max(0, payloadBytes - IO_BYTES);
            return 1 + (extraBytes + equivalentBytesPerIo - 1) / equivalentBytesPerIo;
        }
    }
}
