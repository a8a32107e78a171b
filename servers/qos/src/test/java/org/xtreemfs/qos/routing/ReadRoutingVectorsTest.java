package org.xtreemfs.qos.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The checked-in read-routing vectors are what this package decides now: the C++ client's test replays the same
 * file, so a rule changed here without regenerating it fails here (regenerate as {@link ReadRoutingVectors} says).
 */
class ReadRoutingVectorsTest {
    static final Path VECTORS = Path.of("..", "..", "tests", "vectors", "read-routing.json");

    @Test
    void theCheckedInVectorsAreWhatQosRoutingDecides() throws IOException {
        String generated = ReadRoutingVectors.json();
        if (Boolean.getBoolean("qos.routing.vectors.write")) {
            Files.writeString(VECTORS, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(VECTORS, StandardCharsets.UTF_8))
                .as("%s is stale: regenerate it with -Dqos.routing.vectors.write=true (see ReadRoutingVectors)",
                        VECTORS)
                .isEqualTo(generated);
    }

    @Test
    void theVectorsCoverEveryDecision() {
        String generated = ReadRoutingVectors.json();
        // Both patterns, every policy, and reads that were stolen (replica differs from the router's) by the tail and
        // by the middle.
        assertThat(generated).contains("\"pattern\": \"SEQUENTIAL\"", "\"pattern\": \"RANDOM\"",
                "\"routing\": \"round-robin\"", "\"routing\": \"pattern\"",
                "\"routing\": \"pattern-no-stealing\"");
        assertThat(generated).containsPattern("\"routedReplica\": 0, \"replica\": 1\\}");
        assertThat(generated).containsPattern("\"routedReplica\": 0, \"replica\": 2\\}");
        // Only reads of confirmed random streams move, and a stealable read stays where a thief has write-back.
        assertThat(generated)
                .doesNotContainPattern("\"stealable\": false, \"routedReplica\": (\\d), \"replica\": (?!\\1)");
        assertThat(generated).containsPattern("\"queued\": \\[6,0,0\\], \"dirtyBytes\": \\[0,4096,8192\\],"
                + " \"pattern\": \"RANDOM\", \"stealable\": true, \"routedReplica\": 0, \"replica\": 0\\}");
        assertThat(generated).containsPattern("\"stealable\": false, \"routedReplica\": 0, \"replica\": 0\\}");
    }
}
