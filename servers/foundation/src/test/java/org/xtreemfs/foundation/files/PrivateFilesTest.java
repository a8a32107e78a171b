package org.xtreemfs.foundation.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFilesTest {
    @TempDir
    Path temporary;

    @Test
    void newFoldersAndFilesAreOwnerOnlyAndAnExistingWideFolderIsNarrowed() throws Exception {
        Path nested = PrivateFiles.folder(temporary.resolve("a/b/c"));
        for (Path folder : new Path[] {temporary.resolve("a"), temporary.resolve("a/b"), nested}) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder))).isEqualTo("rwx------");
        }
        Path wide = Files.createDirectory(temporary.resolve("made-by-mkdir"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(wide, PosixFilePermissions.fromString("rwxr-xr-x")); // past the umask
        PrivateFiles.folder(wide);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(wide))).isEqualTo("rwx------");

        Path file = PrivateFiles.writeNewFile(nested.resolve("secret"), "s3cret\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Files.readString(file)).isEqualTo("s3cret\n");
        assertThatThrownBy(() -> PrivateFiles.writeNewFile(file, "again"))
                .isInstanceOf(FileAlreadyExistsException.class);
    }

    @Test
    void oneImmutableFileAttributeServesEveryCreationAsOwnerOnly() {
        // Proves the OSD's object file creations share one attribute (no copy of the permissions per new object file)
        // and that no caller can widen it for the others.
        assertThat(PrivateFiles.fileAttribute()).isSameAs(PrivateFiles.fileAttribute());
        assertThat(PosixFilePermissions.toString(PrivateFiles.fileAttribute().value())).isEqualTo("rw-------");
        assertThatThrownBy(() -> PrivateFiles.fileAttribute().value()
                .add(java.nio.file.attribute.PosixFilePermission.OTHERS_READ))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
