package org.xtreemfs.foundation.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.xtreemfs.foundation.kv.Keys.utf8;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The behaviour every {@link KvStore} must have; one subclass per implementation. */
abstract class KvStoreContractTest {

    @TempDir
    Path folder;

    KvStore store;

    /** Opens a fresh, empty store using files under {@code directory} if it needs any. */
    abstract KvStore open(Path directory);

    /** Opens what {@link KvStore#checkpoint} wrote into {@code directory}. */
    abstract KvStore openCheckpoint(Path directory);

    @BeforeEach
    void openStore() {
        store = open(folder.resolve("store"));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private static List<String> keysOf(List<KvEntry> entries) {
        List<String> keys = new ArrayList<>();
        entries.forEach(entry -> keys.add(new String(entry.key(), StandardCharsets.UTF_8)));
        return keys;
    }

    @Test
    void getExpectedAbsentAnswersAsGet() {
        // Proves getExpectedAbsent gives get's answer for every state a key can be in: never written, written (in
        // the memtable), flushed to a table, overwritten or deleted after a flush (memtable over table), deleted
        // and flushed, an empty value, and all of them again after a reopen (nothing cached in memory).
        store.put(utf8("flushed"), utf8("1"));
        store.put(utf8("overwritten"), utf8("old"));
        store.put(utf8("deleted-later"), utf8("1"));
        store.put(utf8("deleted-flushed"), utf8("1"));
        store.put(utf8("empty"), new byte[0]);
        store.delete(utf8("deleted-flushed"));
        store.flush();
        store.put(utf8("overwritten"), utf8("new"));
        store.delete(utf8("deleted-later"));
        store.put(utf8("memtable"), utf8("2"));
        List<String> keys = List.of("never", "flushed", "overwritten", "deleted-later", "deleted-flushed", "empty",
                "memtable");
        assertSameAsGet(store, keys);
        assertThat(store.getExpectedAbsent(utf8("overwritten"))).hasValueSatisfying(
                value -> assertThat(value).isEqualTo(utf8("new")));
        assertThat(store.getExpectedAbsent(utf8("deleted-later"))).isEmpty();
        assertThat(store.getExpectedAbsent(utf8("never"))).isEmpty();
        Path checkpoint = folder.resolve("checkpoint");
        store.checkpoint(checkpoint);
        try (KvStore reopened = openCheckpoint(checkpoint)) {
            assertSameAsGet(reopened, keys);
        }
    }

    private static void assertSameAsGet(KvStore store, List<String> keys) {
        for (String key : keys) {
            assertThat(store.getExpectedAbsent(utf8(key)).map(value -> new String(value, StandardCharsets.UTF_8)))
                    .as(key).isEqualTo(store.get(utf8(key)).map(value -> new String(value, StandardCharsets.UTF_8)));
        }
    }

    @Test
    void putGetOverwriteDelete() {
        // Proves the basic map operations, including reading absent and deleted keys.
        assertThat(store.get(utf8("a"))).isEmpty();
        store.put(utf8("a"), utf8("1"));
        store.put(utf8("a"), utf8("2"));
        assertThat(store.get(utf8("a")))
                .hasValueSatisfying(v -> assertThat(v).isEqualTo(utf8("2")));
        store.delete(utf8("a"));
        store.delete(utf8("never-there"));
        assertThat(store.get(utf8("a"))).isEmpty();
        store.put(utf8("empty"), new byte[0]);
        assertThat(store.get(utf8("empty"))).hasValueSatisfying(v -> assertThat(v).isEmpty());
    }

    @Test
    void storedArraysAreIsolatedFromCallers() {
        // Proves mutating arrays passed to put or returned by get changes nothing stored.
        byte[] key = utf8("k");
        byte[] value = utf8("v");
        store.put(key, value);
        key[0] = 'x';
        value[0] = 'x';
        byte[] read = store.get(utf8("k")).orElseThrow();
        read[0] = 'y';
        assertThat(store.get(utf8("k")))
                .hasValueSatisfying(v -> assertThat(v).isEqualTo(utf8("v")));
    }

    @Test
    void multiGetAnswersEveryKeyInTheOrderAskedWithAbsentKeysEmpty() {
        // Proves multi-get returns what get returns for each key, in the order of the keys (not key order), absent
        // and deleted keys as empty, a key asked twice twice, and arrays the caller may change without changing the
        // store; no keys, no values.
        for (int i = 0; i < 300; i++) {
            store.put(utf8("k" + i), utf8("v" + i));
        }
        store.delete(utf8("k7"));
        List<byte[]> keys = List.of(utf8("k299"), utf8("k7"), utf8("k0"), utf8("absent"), utf8("k150"), utf8("k0"));
        List<java.util.Optional<byte[]>> values = store.multiGet(keys);
        assertThat(values).hasSize(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            assertThat(values.get(i).map(String::new).orElse(null))
                    .isEqualTo(store.get(keys.get(i)).map(String::new).orElse(null));
        }
        assertThat(values.get(0)).hasValueSatisfying(v -> assertThat(v).isEqualTo(utf8("v299")));
        assertThat(values.get(1)).isEmpty();
        assertThat(values.get(3)).isEmpty();
        values.get(2).orElseThrow()[0] = 'x';
        assertThat(store.get(utf8("k0"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(utf8("v0")));
        assertThat(store.multiGet(List.of())).isEmpty();
    }

    @Test
    void keysSortAsUnsignedBytes() {
        // Proves bytes >= 0x80 sort after 0x7F, as RocksDB's bytewise comparator does.
        byte[][] keys = {{(byte) 0xFF}, {0x01}, {(byte) 0x80}, {0x7F}, {0x01, 0x00}};
        for (byte[] key : keys) {
            store.put(key, new byte[] {1});
        }
        List<KvEntry> entries = store.scan(KeyRange.all(), 100);
        assertThat(entries).extracting(KvEntry::key).containsExactly(new byte[] {0x01},
                new byte[] {0x01, 0x00}, new byte[] {0x7F}, new byte[] {(byte) 0x80},
                new byte[] {(byte) 0xFF});
    }

    @Test
    void prefixAndBetweenScansRespectBounds() {
        // Proves prefix and half-open ranges include exactly their keys, also for 0xFF prefixes.
        for (String key : List.of("a", "a/", "a/1", "a/2", "a0", "b", "b/1")) {
            store.put(utf8(key), utf8(key));
        }
        assertThat(keysOf(store.scan(KeyRange.prefix(utf8("a/")), 100)))
                .containsExactly("a/", "a/1", "a/2");
        assertThat(keysOf(store.scan(KeyRange.between(utf8("a/1"), utf8("b")), 100)))
                .containsExactly("a/1", "a/2", "a0");
        assertThat(keysOf(store.scan(KeyRange.prefix(utf8("a/")), 2))).containsExactly("a/", "a/1");
        assertThat(store.scan(KeyRange.prefix(utf8("c")), 100)).isEmpty();
        store.put(new byte[] {(byte) 0xFF, (byte) 0xFF, 1}, utf8("x"));
        store.put(new byte[] {(byte) 0xFF}, utf8("y"));
        assertThat(store.scan(KeyRange.prefix(new byte[] {(byte) 0xFF, (byte) 0xFF}), 100))
                .extracting(KvEntry::key).containsExactly(new byte[] {(byte) 0xFF, (byte) 0xFF, 1});
    }

    @Test
    void batchAppliesInOrderAndAtomically() {
        // Proves a batch's later operation on a key wins and the batch becomes visible at once.
        store.put(utf8("old"), utf8("1"));
        WriteBatch batch = new WriteBatch().put(utf8("x"), utf8("1")).delete(utf8("x"))
                .put(utf8("y"), utf8("2")).delete(utf8("old"));
        assertThat(store.get(utf8("y"))).isEmpty();
        store.write(batch, Durability.SYNC);
        assertThat(store.get(utf8("x"))).isEmpty();
        assertThat(store.get(utf8("y"))).isPresent();
        assertThat(store.get(utf8("old"))).isEmpty();
    }

    @Test
    void iteratorSeesTheStoreAsOfItsCreation() {
        // Proves iterators are snapshots: later writes and deletes do not show through.
        store.put(utf8("p/1"), utf8("a"));
        store.put(utf8("p/2"), utf8("b"));
        try (KvIterator iterator = store.iterator(KeyRange.prefix(utf8("p/")))) {
            store.put(utf8("p/3"), utf8("c"));
            store.delete(utf8("p/2"));
            List<KvEntry> seen = new ArrayList<>();
            iterator.forEachRemaining(seen::add);
            assertThat(seen).containsExactly(new KvEntry(utf8("p/1"), utf8("a")),
                    new KvEntry(utf8("p/2"), utf8("b")));
            assertThatThrownBy(iterator::next).isInstanceOf(java.util.NoSuchElementException.class);
        }
    }

    @Test
    void checkpointIsAConsistentCopy() {
        // Proves a checkpoint holds the state at checkpoint time and later writes stay out of it.
        store.put(utf8("before"), utf8("1"));
        Path checkpoint = folder.resolve("checkpoint");
        store.checkpoint(checkpoint);
        store.put(utf8("after"), utf8("2"));
        assertThatThrownBy(() -> store.checkpoint(checkpoint)).isInstanceOf(KvException.class)
                .hasMessageContaining("checkpoint");
        try (KvStore copy = openCheckpoint(checkpoint)) {
            assertThat(keysOf(copy.scan(KeyRange.all(), 10))).containsExactly("before");
        }
    }

    @Test
    void closedStoreAndIteratorFailWithClearError() {
        // Proves use after close throws KvException "closed" (no crash); close is idempotent.
        store.put(utf8("k"), utf8("v"));
        KvIterator iterator = store.iterator(KeyRange.all());
        store.close();
        store.close();
        assertThatThrownBy(() -> store.get(utf8("k"))).isInstanceOf(KvException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> store.put(utf8("k"), utf8("v"))).isInstanceOf(KvException.class);
        assertThatThrownBy(() -> store.scan(KeyRange.all(), 1)).isInstanceOf(KvException.class);
        assertThatThrownBy(store::sync).isInstanceOf(KvException.class);
        assertThatThrownBy(store::flush).isInstanceOf(KvException.class);
        assertThatThrownBy(() -> store.checkpoint(folder.resolve("late")))
                .isInstanceOf(KvException.class).hasMessageContaining("closed");
        assertThatThrownBy(iterator::hasNext).isInstanceOf(KvException.class)
                .hasMessageContaining("closed");
        iterator.close();
    }

    @Test
    void closedIteratorFails() {
        // Proves an iterator cannot be used after its own close.
        store.put(utf8("k"), utf8("v"));
        KvIterator iterator = store.iterator(KeyRange.all());
        iterator.close();
        assertThatThrownBy(iterator::hasNext).isInstanceOf(KvException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void concurrentBatchesAreNeverSeenHalfApplied() throws Exception {
        // Proves atomicity under concurrency: each batch writes a pair, no scan sees half a pair.
        int writerCount = 4;
        int batchesPerWriter = 300;
        ExecutorService pool = Executors.newFixedThreadPool(writerCount + 1);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < writerCount; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < batchesPerWriter; i++) {
                        String id = writer + "-" + i;
                        store.write(new WriteBatch().put(utf8("a/" + id), utf8(id))
                                .put(utf8("b/" + id), utf8(id)), Durability.BUFFERED);
                    }
                }));
            }
            Future<?> reader = pool.submit(() -> {
                for (int round = 0; round < 50; round++) {
                    List<KvEntry> all = store.scan(KeyRange.all(), Integer.MAX_VALUE);
                    long aCount = all.stream().filter(e -> e.key()[0] == 'a').count();
                    assertThat(all.size()).isEqualTo(2 * aCount);
                }
            });
            for (Future<?> writer : writers) {
                writer.get(30, TimeUnit.SECONDS);
            }
            reader.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.scan(KeyRange.all(), Integer.MAX_VALUE))
                .hasSize(2 * writerCount * batchesPerWriter);
    }

    @Test
    void randomOperationsMatchASortedMapModel() {
        // Proves, for a fixed seed, the store behaves like a TreeMap with unsigned-byte order.
        SplittableRandom random = new SplittableRandom(42);
        TreeMap<String, String> model = new TreeMap<>();
        for (int i = 0; i < 2_000; i++) {
            String key = "k" + random.nextInt(200);
            if (random.nextInt(3) == 0) {
                store.delete(utf8(key));
                model.remove(key);
            } else {
                String value = "v" + i;
                store.put(utf8(key), utf8(value));
                model.put(key, value);
            }
        }
        store.sync();
        store.flush();
        assertThat(keysOf(store.scan(KeyRange.all(), Integer.MAX_VALUE)))
                .containsExactlyElementsOf(model.keySet());
        assertThat(keysOf(store.scan(KeyRange.prefix(utf8("k1")), Integer.MAX_VALUE)))
                .containsExactlyElementsOf(model.subMap("k1", "k2").keySet());
    }
}
