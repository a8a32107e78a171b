package org.xtreemfs.qos.wfq;

/**
 * How a request is charged, in the one cost unit of a queue. Always charge the payload length (a write's data,
 * a read's requested range), never the size of a header: the earlier prototype charged writes by their header
 * and so let writers through for free.
 */
public sealed interface CostRule {

    /** Cost of a request carrying {@code payloadBytes}; always >= 1. */
    long costOf(long payloadBytes);

    /**
     * The bytes to charge for a request of {@code payloadBytes}: the payload, plus what the device loses to
     * positioning when the request does not continue its file's previous request on this OSD
     * ({@code continuesStream} false). Only byte-charged queues add it: a 4 KiB I/O already is a positioning.
     */
    default long chargedBytes(long payloadBytes, boolean continuesStream) {
        return payloadBytes;
    }

    /**
     * Sequential and best-effort OSDs: cost is the payload in bytes, plus {@code positioningBytes} for a request
     * that does not continue its stream. Why: the disk spends about one random I/O's time (seek and rotation)
     * before such a request, time in which it would have transferred {@code positioningBytes} of a stream; charging
     * a 4 KiB random write 4 KiB let a best-effort random writer on a sequential OSD take far more of the disk
     * than its share (measured through FUSE on an emulated HDD: the reserved sequential volumes got 60 % of their
     * reservation in 1-s windows, tests/bench/qos_fuse). {@code Bytes()} charges no positioning.
     */
    record Bytes(long positioningBytes) implements CostRule {
        public Bytes {
            if (positioningBytes < 0) {
                throw new IllegalArgumentException("positioningBytes must be >= 0, was " + positioningBytes);
            }
        }

        public Bytes() {
            this(0);
        }

        @Override
        public long costOf(long payloadBytes) {
            return Math.max(1, payloadBytes);
        }

        @Override
        public long chargedBytes(long payloadBytes, boolean continuesStream) {
            return continuesStream ? payloadBytes : payloadBytes + positioningBytes;
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
