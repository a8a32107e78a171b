package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FileIdsTest {
    @Test
    void escapingIsReversibleAndYieldsSafeNames() {
        // Proves every id maps to a name of safe characters and back, so distinct ids never share a folder.
        for (String id : new String[] {"a:1", "ünï/cødé:7", ".hidden", "%41", "x..y", "vol-1_2.3:99"}) {
            String name = FileIds.escape(id);
            assertThat(name).matches("[A-Za-z0-9%_.-]+").doesNotStartWith(".").doesNotContain("/");
            assertThat(FileIds.unescape(name)).isEqualTo(id);
        }
        assertThat(FileIds.escape("%41")).isNotEqualTo(FileIds.escape("A"));
    }

    @Test
    void hashFoldersAreTwoHexPairsAndStable() {
        // Proves the hash folder names are deterministic two-hex-digit names.
        String[] first = FileIds.hashFolders("vol:1");
        assertThat(first).hasSize(2).allMatch(part -> part.matches("[0-9a-f]{2}"));
        assertThat(FileIds.hashFolders("vol:1")).isEqualTo(first);
        assertThat(FileIds.problem("")).contains("empty");
        assertThat(FileIds.problem("x".repeat(81))).contains("longer than 80");
        assertThat(FileIds.problem("v:1")).isNull();
    }
}
