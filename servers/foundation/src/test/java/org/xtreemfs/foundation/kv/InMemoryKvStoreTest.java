package org.xtreemfs.foundation.kv;

import java.nio.file.Path;

class InMemoryKvStoreTest extends KvStoreContractTest {

    @Override
    KvStore open(Path directory) {
        return new InMemoryKvStore();
    }

    @Override
    KvStore openCheckpoint(Path directory) {
        return InMemoryKvStore.openCheckpoint(directory);
    }
}
