package org.xtreemfs.client.striping;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java striping arithmetic against tests/vectors/striping.csv, the vectors the C++ client checks too:
 * both clients must cut a byte range into the same objects, stripe positions, offsets and lengths.
 */
class StripingVectorsTest {
    private static final Path VECTORS = Path.of("..", "tests", "vectors", "striping.csv");

    private record Piece(long objectNumber, int stripePosition, int offsetInObject, int lengthBytes) {}

    // Every vector's range splits into exactly the expected pieces, in file order.
    @Test
    void javaStripingMatchesTheSharedVectors() throws IOException {
        List<String> rows = Files.readAllLines(VECTORS).stream().filter(line -> !line.startsWith("#")).toList();
        assertThat(rows.get(0)).isEqualTo("object_size_bytes,stripe_width,file_offset_bytes,length_bytes,pieces");
        List<String> vectors = rows.subList(1, rows.size());
        assertThat(vectors).as("vectors in %s", VECTORS).hasSizeGreaterThan(1000);
        for (String vector : vectors) {
            String[] fields = vector.split(",", -1);
            StripeLayout layout = new StripeLayout(Integer.parseInt(fields[0]), Integer.parseInt(fields[1]));
            long fileOffset = Long.parseLong(fields[2]);
            int lengthBytes = Integer.parseInt(fields[3]);
            List<Piece> actual = new ArrayList<>();
            int requestOffset = 0;
            for (ObjectSlice slice : layout.slices(fileOffset, lengthBytes)) {
                assertThat(slice.offsetInRequest()).as("request offset in %s", vector).isEqualTo(requestOffset);
                requestOffset += slice.lengthBytes();
                actual.add(new Piece(slice.objectNumber(), layout.stripePosition(slice.objectNumber()),
                        slice.offsetInObject(), slice.lengthBytes()));
            }
            assertThat(actual).as("pieces of %s", vector).isEqualTo(expectedPieces(fields[4]));
        }
    }

    private static List<Piece> expectedPieces(String field) {
        List<Piece> pieces = new ArrayList<>();
        if (field.isEmpty()) {
            return pieces;
        }
        for (String piece : field.split(";")) {
            String[] parts = piece.split(":");
            pieces.add(new Piece(Long.parseLong(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
                    Integer.parseInt(parts[3])));
        }
        return pieces;
    }
}
