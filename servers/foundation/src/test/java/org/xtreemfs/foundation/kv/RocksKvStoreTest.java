package org.xtreemfs.foundation.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.xtreemfs.foundation.kv.Keys.utf8;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.config.Settings;
import org.xtreemfs.foundation.config.SettingsException;

class RocksKvStoreTest extends KvStoreContractTest {

    @Override
    KvStore open(Path directory) {
        return RocksKvStore.open(RocksKvOptions.defaults(directory));
    }

    @Override
    KvStore openCheckpoint(Path directory) {
        return RocksKvStore.open(RocksKvOptions.defaults(directory));
    }

    @Test
    void dataSurvivesCloseAndReopen() {
        // Proves writes (buffered and synced) are on disk after a clean close.
        store.put(utf8("buffered"), utf8("1"));
        store.write(new WriteBatch().put(utf8("synced"), utf8("2")), Durability.SYNC);
        store.close();
        try (KvStore reopened = open(folder.resolve("store"))) {
            assertThat(reopened.get(utf8("buffered"))).isPresent();
            assertThat(reopened.get(utf8("synced"))).isPresent();
        }
    }

    @Test
    void secondOpenOfTheSameDirectoryNamesIt() {
        // Proves a locked database fails with a KvException naming the directory.
        Path directory = folder.resolve("store");
        assertThatThrownBy(() -> open(directory)).isInstanceOf(KvException.class)
                .hasMessageContaining("cannot open RocksDB in " + directory);
    }

    @Test
    void settingsBuildOptionsUnderTheServicePrefix() throws SettingsException {
        // Proves the KV settings live under the service prefix and reach the options.
        RocksKvSettings kvSettings = new RocksKvSettings("mrc");
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("mrc.kv.blockCacheBytes", "256MiB");
        Settings settings = kvSettings.schema().validate(properties);
        RocksKvOptions options = kvSettings.options(settings, folder.resolve("db"));
        assertThat(options.blockCacheBytes()).isEqualTo(256L << 20);
        assertThat(options.bloomFilterBitsPerKey()).isEqualTo(10);
    }
}
