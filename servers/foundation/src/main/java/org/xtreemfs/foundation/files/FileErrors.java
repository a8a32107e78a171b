package org.xtreemfs.foundation.files;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** What went wrong with a file, in words a user can act on: the JDK leaves the reason empty for its common cases. */
public final class FileErrors {
    private FileErrors() {
    }

    /** {@code FILE: reason} for a file system error ("/data/x: no such file or folder"), else the message. */
    public static String describe(IOException error) {
        if (!(error instanceof FileSystemException e)) {
            return error.getMessage() != null ? error.getMessage() : error.getClass().getSimpleName();
        }
        String reason = e.getReason() != null ? e.getReason()
                : e instanceof NoSuchFileException ? "no such file or folder"
                : e instanceof AccessDeniedException ? "permission denied"
                : e instanceof NotDirectoryException ? "not a folder"
                : e instanceof FileAlreadyExistsException ? "exists already"
                : e instanceof DirectoryNotEmptyException ? "folder not empty"
                : e.getClass().getSimpleName();
        return (e.getFile() != null ? e.getFile() + ": " : "") + reason;
    }
}
