package org.xtreemfs.osd.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;

/** The chain-change fence: raised by any request, refusing older updates, kept in the store, removed with the file. */
class XLocVersionsTest {
    @Test
    void anUpdateOlderThanTheNewestVersionSeenIsRefusedAndTheFenceSurvivesARestart() throws Exception {
        InMemoryKvStore store = new InMemoryKvStore();
        XLocVersions versions = new XLocVersions(store);
        versions.checkUpdate("v:1", 1, "WriteObject");
        versions.checkUpdate("v:1", 0, "WriteObject"); // no version: the first
        assertThat(versions.observe("v:1", 3)).as("a read raises it").isEqualTo(3);
        assertThatThrownBy(() -> versions.checkUpdate("v:1", 2, "TruncateFile"))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.posixErrno()).isEqualTo(Errno.ESTALE);
                    assertThat(e.getMessage()).contains("TruncateFile of file v:1 carries XLoc version 2")
                            .contains("version 3");
                });
        versions.checkUpdate("v:1", 4, "WriteObject");
        assertThat(versions.observe("v:2", 1)).as("other files are apart").isEqualTo(1);

        XLocVersions restarted = new XLocVersions(store);
        assertThatThrownBy(() -> restarted.checkUpdate("v:1", 3, "WriteObject")).isInstanceOf(RpcException.class);
        store.write(restarted.removeWith(new WriteBatch(), "v:1"), Durability.SYNC);
        assertThat(new XLocVersions(store).observe("v:1", 1)).as("gone with the file").isEqualTo(1);
        assertThat(restarted.observe("v:1", 1)).isEqualTo(1);
    }
}
