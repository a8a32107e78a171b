package org.xtreemfs.osd.storage;

import java.nio.file.Path;
import java.util.Optional;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;

/** An in-memory store that tests extend to watch or fail some of its calls; every call goes to {@link #inner}. */
public class ForwardingKvStore implements KvStore {
    protected final InMemoryKvStore inner = new InMemoryKvStore();

    @Override
    public Optional<byte[]> get(byte[] key) {
        return inner.get(key);
    }

    @Override
    public void write(WriteBatch batch, Durability durability) {
        inner.write(batch, durability);
    }

    @Override
    public KvIterator iterator(KeyRange range) {
        return inner.iterator(range);
    }

    @Override
    public void sync() {
        inner.sync();
    }

    @Override
    public void flush() {
        inner.flush();
    }

    @Override
    public void checkpoint(Path directory) {
        inner.checkpoint(directory);
    }

    @Override
    public void close() {
        inner.close();
    }
}
