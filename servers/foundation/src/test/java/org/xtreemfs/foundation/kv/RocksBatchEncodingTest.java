package org.xtreemfs.foundation.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.foundation.kv.Keys.utf8;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** {@link RocksBatchEncoding} writes the bytes RocksJava's own batch builds, and RocksDB applies them. */
class RocksBatchEncodingTest {

    static {
        RocksDB.loadLibrary();
    }

    @TempDir
    Path folder;

    /** What RocksJava builds for the same operations, one JNI call each (the store's way before the encoding). */
    private static byte[] rocksJavaEncoding(WriteBatch batch) throws RocksDBException {
        try (org.rocksdb.WriteBatch native_ = new org.rocksdb.WriteBatch()) {
            for (WriteBatch.Operation operation : batch.operations()) {
                if (operation instanceof WriteBatch.Put put) {
                    native_.put(put.key(), put.value());
                } else {
                    native_.delete(operation.key());
                }
            }
            return native_.data();
        }
    }

    @Test
    void anEmptyBatchIsTheHeaderAlone() throws RocksDBException {
        // Proves the 12-byte header (sequence 0, count 0) matches RocksDB's empty batch.
        WriteBatch empty = new WriteBatch();
        assertThat(RocksBatchEncoding.encode(empty)).isEqualTo(rocksJavaEncoding(empty)).hasSize(12);
    }

    @Test
    void putsAndDeletesOfEveryLengthClassEncodeAsRocksJavaDoes() throws RocksDBException {
        // Proves tags, varint32 lengths (1, 2 and 3 bytes: 0, 127, 128, 16383, 16384, 70000) and the little-endian count
        // equal RocksJava's bytes, including empty keys and values.
        WriteBatch batch = new WriteBatch();
        int[] lengths = {0, 1, 127, 128, 300, 16_383, 16_384, 70_000};
        for (int keyLength : lengths) {
            for (int valueLength : lengths) {
                batch.put(filled(keyLength, 'k'), filled(valueLength, 'v'));
            }
            batch.delete(filled(keyLength, 'd'));
        }
        for (int i = 0; i < 200; i++) {
            batch.delete(utf8("filler" + i));
        }
        assertThat(batch.size()).isGreaterThan(255); // the count needs more than its lowest byte
        assertThat(RocksBatchEncoding.encode(batch)).isEqualTo(rocksJavaEncoding(batch));
    }

    @Test
    void randomBatchesEncodeAsRocksJavaDoes() throws RocksDBException {
        // Proves byte equality over 500 seeded random batches of puts and deletes with random binary keys and values.
        SplittableRandom random = new SplittableRandom(20261128L);
        for (int round = 0; round < 500; round++) {
            WriteBatch batch = new WriteBatch();
            int operations = random.nextInt(0, 20);
            for (int i = 0; i < operations; i++) {
                byte[] key = randomBytes(random, random.nextInt(0, 200));
                if (random.nextBoolean()) {
                    batch.put(key, randomBytes(random, random.nextInt(0, 600)));
                } else {
                    batch.delete(key);
                }
            }
            assertThat(RocksBatchEncoding.encode(batch)).as("round %d", round).isEqualTo(rocksJavaEncoding(batch));
        }
    }

    @Test
    void randomBatchesWrittenThroughTheStoreLeaveWhatAMapWouldHold() {
        // Proves RocksDB applies the encoded batches in order (a later operation on a key wins), across a reopen.
        SplittableRandom random = new SplittableRandom(11L);
        TreeMap<String, String> expected = new TreeMap<>();
        Path directory = folder.resolve("db");
        try (RocksKvStore store = RocksKvStore.open(RocksKvOptions.defaults(directory))) {
            for (int round = 0; round < 300; round++) {
                WriteBatch batch = new WriteBatch();
                for (int i = random.nextInt(1, 12); i > 0; i--) {
                    String key = "key" + random.nextInt(40);
                    if (random.nextInt(3) == 0) {
                        batch.delete(utf8(key));
                        expected.remove(key);
                    } else {
                        String value = "value" + round + "-" + i;
                        batch.put(utf8(key), utf8(value));
                        expected.put(key, value);
                    }
                }
                store.write(batch, round % 7 == 0 ? Durability.SYNC : Durability.BUFFERED);
            }
        }
        try (RocksKvStore reopened = RocksKvStore.open(RocksKvOptions.defaults(directory))) {
            TreeMap<String, String> stored = new TreeMap<>();
            for (KvEntry entry : reopened.scan(KeyRange.all(), 1000)) {
                stored.put(new String(entry.key()), new String(entry.value()));
            }
            assertThat(stored).isEqualTo(expected);
        }
    }

    private static byte[] filled(int length, char fill) {
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, (byte) fill);
        return bytes;
    }

    private static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }
}
