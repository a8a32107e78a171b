package org.xtreemfs.foundation.files;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The one rule for the permissions of what servers and the cluster launcher write: object files, databases, logs,
 * secrets and state are readable by the service's user only. Files are created 0600 and folders 0700 (the
 * process's umask can only narrow that further). Files a library creates itself (RocksDB's, whose mode follows
 * the umask) are kept private by their folder: a 0700 folder lets no other user reach what is inside.
 */
public final class PrivateFiles {
    public static final Set<PosixFilePermission> FILE_PERMISSIONS = PosixFilePermissions.fromString("rw-------");
    public static final Set<PosixFilePermission> FOLDER_PERMISSIONS = PosixFilePermissions.fromString("rwx------");

    /**
     * The attribute {@link #fileAttribute} hands out: immutable (it holds its own copy of the permissions and hands out
     * an unmodifiable view), so one serves every creation. Made per call it was a HashSet copy per new object file of
     * the OSD (0.5-1 % of its samples in a sequential write into a fresh file, tests/bench/fuse/README.md, session 18).
     */
    private static final FileAttribute<Set<PosixFilePermission>> FILE_ATTRIBUTE =
            PosixFilePermissions.asFileAttribute(FILE_PERMISSIONS);

    private PrivateFiles() {
    }

    /** For {@code Files.createFile} and {@code FileChannel.open} with CREATE: a new file gets mode 0600. */
    public static FileAttribute<Set<PosixFilePermission>> fileAttribute() {
        return FILE_ATTRIBUTE;
    }

    /**
     * Creates {@code folder} and its missing parents with mode 0700, and narrows {@code folder} itself to 0700 when
     * it exists already with wider permissions (a data folder an operator made with {@code mkdir}, or one written
     * by an earlier version): the folder is the service's own, and what it holds must not be readable by others.
     * Parents that existed before are left as they are.
     *
     * @return {@code folder}
     */
    public static Path folder(Path folder) throws IOException {
        createFolders(folder);
        if (!Files.getPosixFilePermissions(folder).equals(FOLDER_PERMISSIONS)) {
            Files.setPosixFilePermissions(folder, FOLDER_PERMISSIONS);
        }
        return folder;
    }

    /**
     * A server's data folder, given by setting {@code settingKey}: {@link #folder} it, and check that the server
     * can write there.
     *
     * @throws IOException naming the setting, the folder and why it cannot be used (a path through a file, a
     *     folder that cannot be created, a read-only one), for the one line a failed start prints
     */
    public static Path dataFolder(String settingKey, Path folder) throws IOException {
        try {
            folder(folder);
        } catch (FileSystemException e) {
            throw new IOException(settingKey + " = " + folder + " cannot be used: " + FileErrors.describe(e), e);
        }
        if (!Files.isWritable(folder)) {
            throw new IOException(settingKey + " = " + folder + " cannot be used: the folder is not writable");
        }
        return folder;
    }

    /** Creates {@code folder} and its missing parents with mode 0700; existing ones are left as they are. */
    public static Path createFolders(Path folder) throws IOException {
        return Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(FOLDER_PERMISSIONS));
    }

    /** Creates a new, empty file with mode 0600; fails if it exists (so it was never readable by others). */
    public static Path createFile(Path file) throws IOException {
        return Files.createFile(file, fileAttribute());
    }

    /** Writes {@code text} to a new file created with mode 0600, replacing none (see {@link #createFile}). */
    public static Path writeNewFile(Path file, String text) throws IOException {
        createFile(file);
        return Files.writeString(file, text, java.nio.charset.StandardCharsets.UTF_8);
    }
}
