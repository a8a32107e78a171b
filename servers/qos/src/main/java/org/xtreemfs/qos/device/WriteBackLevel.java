package org.xtreemfs.qos.device;

/**
 * How full a host's write-back is at one moment: the dirty bytes (acknowledged, not yet on the media, including
 * those under writeback) and the level at which its background flusher starts ({@link WriteBackCache#backgroundBytes},
 * the kernel's dirty_background_bytes). Below that level nothing is being written back for lack of dirty data, so
 * no writer waits for room and the media's write-back capacity goes unused.
 */
public record WriteBackLevel(long dirtyBytes, long backgroundBytes) {
    public WriteBackLevel {
        if (dirtyBytes < 0 || backgroundBytes < 0) {
            throw new IllegalArgumentException("dirtyBytes and backgroundBytes must be >= 0, were " + dirtyBytes
                    + " and " + backgroundBytes);
        }
    }

    /** True while the background flusher has too little dirty data to run. */
    public boolean belowBackground() {
        return dirtyBytes < backgroundBytes;
    }
}
