package org.xtreemfs.osd.storage;

/**
 * What this OSD knows about one file: the file size it implies (the largest end offset it stored since the
 * last truncate, or the size of that truncate, whichever is larger) and the newest truncate epoch it saw.
 */
public record FileMetadata(long sizeBytes, int truncateEpoch) {

    public static final FileMetadata EMPTY = new FileMetadata(0, 0);

    public FileMetadata {
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("file size must not be negative: " + sizeBytes);
        }
    }

    /** The sidecar text: one line "sizeBytes truncateEpoch". */
    String encode() {
        return sizeBytes + " " + Integer.toUnsignedString(truncateEpoch) + "\n";
    }

    static FileMetadata decode(String text) {
        String[] fields = text.trim().split(" ");
        if (fields.length != 2) {
            throw new IllegalArgumentException("file metadata must be \"size epoch\", got \"" + text.trim() + "\"");
        }
        return new FileMetadata(Long.parseLong(fields[0]), Integer.parseUnsignedInt(fields[1]));
    }
}
