package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A file's objects as files of the local file system:
 * {@code <root>/<hash hex 2>/<hash hex 2>/<escaped file id>/<object number>} plus the sidecar
 * {@code meta} (see {@link FileMetadata}) in the same folder.
 *
 * <p>Not thread-safe per file: callers never run two operations on one file concurrently (the storage
 * stage orders them by file id); operations on different files may run in parallel.
 *
 * <p>Durability: a write with {@code sync}, and {@link #fsync}, force the object files, the sidecar and the
 * folders from the file's folder up to the root, so what they acknowledge survives a crash. The sidecar is
 * always replaced atomically (write temp, rename), so it is never torn.
 */
public final class ObjectStore {
    static final String METADATA_FILE = "meta";
    private static final String METADATA_TEMP_FILE = "meta.tmp";

    private final Path root;

    public ObjectStore(Path root) throws IOException {
        this.root = root;
        Files.createDirectories(root);
    }

    public Path root() {
        return root;
    }

    /** The folder holding a file's objects and sidecar (it may not exist). */
    public Path fileFolder(String fileId) {
        String[] hash = FileIds.hashFolders(fileId);
        return root.resolve(hash[0]).resolve(hash[1]).resolve(FileIds.escape(fileId));
    }

    public Path objectPath(String fileId, long objectNumber) {
        return fileFolder(fileId).resolve(Long.toString(objectNumber));
    }

    /**
     * The stored bytes of [offset, offset+length) of an object: fewer (possibly none) when the object is
     * missing or its stored data ends earlier. Holes inside the stored range read as zeros.
     */
    public byte[] read(String fileId, StripeLayout layout, long objectNumber, int offset, int length)
            throws IOException {
        checkRange(layout, objectNumber, offset, length);
        Path object = objectPath(fileId, objectNumber);
        try (FileChannel channel = FileChannel.open(object, StandardOpenOption.READ)) {
            long available = Math.max(0, channel.size() - offset);
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(length, available));
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, offset + buffer.position()) < 0) {
                    break;
                }
            }
            if (buffer.hasRemaining()) {
                byte[] shorter = new byte[buffer.position()];
                System.arraycopy(buffer.array(), 0, shorter, 0, shorter.length);
                return shorter;
            }
            return buffer.array();
        } catch (NoSuchFileException e) {
            return new byte[0];
        }
    }

    /**
     * Writes {@code data} at {@code offset} within an object (bytes skipped over read as zeros) and grows the
     * recorded file size when the write ends beyond it.
     *
     * @param truncateEpoch the epoch of the caller's capability; the recorded epoch never decreases
     */
    public WriteOutcome write(String fileId, StripeLayout layout, long objectNumber, int offset, ByteBuffer data,
            int truncateEpoch, boolean sync) throws IOException {
        int length = data.remaining();
        checkRange(layout, objectNumber, offset, length);
        Path folder = fileFolder(fileId);
        boolean folderCreated = !Files.isDirectory(folder);
        if (folderCreated) {
            Files.createDirectories(folder);
        }
        Path object = folder.resolve(Long.toString(objectNumber));
        boolean objectCreated = !Files.exists(object);
        try (FileChannel channel = FileChannel.open(object, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long position = offset;
            while (data.hasRemaining()) {
                position += channel.write(data, position);
            }
            if (sync) {
                channel.force(true);
            }
        }
        FileMetadata before = metadata(fileId);
        long endOffset = layout.objectStartOffset(objectNumber) + offset + length;
        int epoch = Integer.compareUnsigned(truncateEpoch, before.truncateEpoch()) > 0
                ? truncateEpoch : before.truncateEpoch();
        FileMetadata after = new FileMetadata(Math.max(before.sizeBytes(), length == 0 ? 0 : endOffset), epoch);
        boolean sizeGrew = after.sizeBytes() > before.sizeBytes();
        boolean metadataChanged = !after.equals(before);
        if (metadataChanged) {
            storeMetadata(folder, after, sync);
        }
        if (sync) {
            // New names (object file, renamed sidecar, new folders) are durable only once their folder is.
            if (folderCreated) {
                forceFolders(folder);
            } else if (objectCreated || metadataChanged) {
                forceFile(folder);
            }
        }
        return new WriteOutcome(sizeGrew, after);
    }

    /**
     * Sets the file's size to {@code newSizeBytes} as far as this OSD's objects go: deletes the objects wholly
     * beyond it, cuts the one holding the new last byte, and, when this OSD holds that object, extends it
     * (sparse) to end exactly at the new size. Records the size and the epoch durably.
     */
    public FileMetadata truncate(String fileId, StripeLayout layout, long newSizeBytes, int truncateEpoch)
            throws IOException {
        if (newSizeBytes < 0) {
            throw new IllegalArgumentException("new file size must not be negative: " + newSizeBytes);
        }
        Path folder = fileFolder(fileId);
        Files.createDirectories(folder);
        long lastObject = newSizeBytes == 0 ? -1 : (newSizeBytes - 1) / layout.objectSizeBytes();
        long lastObjectLength = newSizeBytes - Math.max(0, lastObject) * layout.objectSizeBytes();
        for (long objectNumber : storedObjects(fileId)) {
            Path object = folder.resolve(Long.toString(objectNumber));
            if (objectNumber > lastObject) {
                Files.deleteIfExists(object);
            } else if (objectNumber == lastObject) {
                try (FileChannel channel = FileChannel.open(object, StandardOpenOption.WRITE)) {
                    if (channel.size() > lastObjectLength) {
                        channel.truncate(lastObjectLength);
                    }
                    channel.force(true);
                }
            }
        }
        if (lastObject >= 0 && layout.holds(lastObject)) {
            extendTo(folder.resolve(Long.toString(lastObject)), lastObjectLength);
        }
        FileMetadata before = metadata(fileId);
        int epoch = Integer.compareUnsigned(truncateEpoch, before.truncateEpoch()) > 0
                ? truncateEpoch : before.truncateEpoch();
        FileMetadata after = new FileMetadata(newSizeBytes, epoch);
        storeMetadata(folder, after, true);
        forceFolders(folder);
        return after;
    }

    /** Forces every object of the file, its sidecar and its folders to stable storage. */
    public void fsync(String fileId) throws IOException {
        Path folder = fileFolder(fileId);
        if (!Files.isDirectory(folder)) {
            return;
        }
        for (long objectNumber : storedObjects(fileId)) {
            forceFile(folder.resolve(Long.toString(objectNumber)));
        }
        Path metadata = folder.resolve(METADATA_FILE);
        if (Files.exists(metadata)) {
            forceFile(metadata);
        }
        forceFolders(folder);
    }

    /** The recorded size and epoch; {@link FileMetadata#EMPTY} for a file this OSD never stored. */
    public FileMetadata metadata(String fileId) throws IOException {
        Path metadata = fileFolder(fileId).resolve(METADATA_FILE);
        try {
            return FileMetadata.decode(Files.readString(metadata, StandardCharsets.US_ASCII));
        } catch (NoSuchFileException e) {
            return FileMetadata.EMPTY;
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt file metadata " + metadata + ": " + e.getMessage(), e);
        }
    }

    /** Object numbers stored for the file, ascending. */
    public List<Long> storedObjects(String fileId) throws IOException {
        List<Long> objects = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fileFolder(fileId))) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) {
                    objects.add(Long.parseLong(name));
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        objects.sort(null);
        return objects;
    }

    public boolean exists(String fileId) {
        return Files.isDirectory(fileFolder(fileId));
    }

    /** Removes every object and the sidecar of the file; idempotent. */
    public void deleteFile(String fileId) throws IOException {
        Path folder = fileFolder(fileId);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                Files.deleteIfExists(entry);
            }
        } catch (NoSuchFileException e) {
            return;
        }
        Files.deleteIfExists(folder);
        forceFile(folder.getParent());
    }

    private static void checkRange(StripeLayout layout, long objectNumber, int offset, long length) {
        if (objectNumber < 0 || offset < 0 || length < 0 || offset + length > layout.objectSizeBytes()) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + length) + ") of object "
                    + objectNumber + " is outside the object size " + layout.objectSizeBytes());
        }
        if (!layout.holds(objectNumber)) {
            throw new IllegalArgumentException("object " + objectNumber + " belongs to stripe position "
                    + Math.floorMod(objectNumber, (long) layout.width()) + ", this OSD is position "
                    + layout.position() + " of " + layout.width());
        }
    }

    private static void extendTo(Path object, long lengthBytes) throws IOException {
        try (FileChannel channel = FileChannel.open(object, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            if (channel.size() < lengthBytes) {
                // Writing the last byte makes the file exactly lengthBytes long; the gap stays sparse.
                channel.write(ByteBuffer.wrap(new byte[1]), lengthBytes - 1);
            }
            channel.force(true);
        }
    }

    private static void storeMetadata(Path folder, FileMetadata metadata, boolean durable) throws IOException {
        Path temp = folder.resolve(METADATA_TEMP_FILE);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(metadata.encode().getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            if (durable) {
                channel.force(true);
            }
        }
        Files.move(temp, folder.resolve(METADATA_FILE), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** Makes the file's folder entry and the hash folders' entries durable (new folders need this). */
    private void forceFolders(Path fileFolder) throws IOException {
        for (Path folder = fileFolder; folder != null && folder.startsWith(root); folder = folder.getParent()) {
            forceFile(folder);
        }
    }

    static void forceFile(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /** What a write changed: whether the recorded size grew, and the metadata after it. */
    public record WriteOutcome(boolean sizeGrew, FileMetadata metadata) {}
}
