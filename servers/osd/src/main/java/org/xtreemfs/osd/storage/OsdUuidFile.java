package org.xtreemfs.osd.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.xtreemfs.foundation.files.PrivateFiles;
import java.util.UUID;

/**
 * The OSD's identity when the configuration gives none: generated once and kept in the data folder, so
 * the OSD keeps its UUID (and the files striped onto it) across restarts.
 */
public final class OsdUuidFile {
    public static final String FILE_NAME = "osd-uuid";

    private OsdUuidFile() {}

    /** {@code configured} when not empty, else the stored UUID, else a new one stored durably first. */
    public static String loadOrCreate(Path dataFolder, String configured) throws IOException {
        if (!configured.isEmpty()) {
            return configured;
        }
        Path file = dataFolder.resolve(FILE_NAME);
        try {
            String stored = Files.readString(file, StandardCharsets.UTF_8).trim();
            if (!stored.isEmpty()) {
                return stored;
            }
        } catch (NoSuchFileException e) {
            // first start: generate below
        }
        PrivateFiles.folder(dataFolder);
        String generated = UUID.randomUUID().toString();
        Path temp = dataFolder.resolve(FILE_NAME + ".tmp");
        Files.deleteIfExists(temp); // left by a crash between write and move
        PrivateFiles.writeNewFile(temp, generated + "\n");
        ObjectStore.forceFile(temp);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        ObjectStore.forceFile(dataFolder);
        return generated;
    }
}
