package org.xtreemfs.osd.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.osd.stages.OsdRequest.ReadObject;
import org.xtreemfs.osd.stages.OsdRequest.TruncateFile;
import org.xtreemfs.osd.stages.OsdRequest.WriteObject;

/**
 * The one record of each file's current XLoc version: raised by any request and by the MRC's confirmation, refusing
 * older requests with XLOC_OUTDATED (the error both clients follow), kept in the store, removed with the file.
 */
class XLocVersionsTest {
    @Test
    void aRequestOlderThanTheNewestVersionSeenIsOutdatedAndTheVersionSurvivesARestart() throws Exception {
        InMemoryKvStore store = new InMemoryKvStore();
        XLocVersions versions = new XLocVersions(store);
        versions.check("v:1", 1, WriteObject.class);
        versions.check("v:1", 0, WriteObject.class); // no version: the first
        versions.check("v:1", 3, ReadObject.class); // a read raises it too
        assertThat(versions.newest("v:1")).isEqualTo(3);
        assertThatThrownBy(() -> versions.check("v:1", 2, TruncateFile.class))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED);
                    assertThat(e.getMessage()).contains("TruncateFile of file v:1 carries XLoc version 2")
                            .contains("version 3");
                });
        assertThatThrownBy(() -> versions.check("v:1", 2, ReadObject.class)).as("reads of an old chain too")
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        versions.check("v:1", 4, WriteObject.class);
        assertThat(versions.newest("v:2")).as("other files are apart").isEqualTo(1);

        XLocVersions restarted = new XLocVersions(store);
        assertThatThrownBy(() -> restarted.check("v:1", 3, WriteObject.class))
                .isInstanceOfSatisfying(RpcException.class,
                e -> assertThat(e.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        store.write(restarted.removeWith(new WriteBatch(), "v:1"), Durability.SYNC);
        assertThat(new XLocVersions(store).newest("v:1")).as("gone with the file").isEqualTo(1);
        assertThat(restarted.newest("v:1")).isEqualTo(1);
    }

    @Test
    void theMrcsConfirmedVersionOutdatesTheXLocsBeforeItAndIsStored() throws Exception {
        // An OSD removed from a chain (version 2 no longer names it) comes back: a client still holding version 1,
        // which names it, is refused once the MRC's version is recorded, also after another restart.
        InMemoryKvStore store = new InMemoryKvStore();
        XLocVersions versions = new XLocVersions(store);
        versions.check("v:7", 1, ReadObject.class);
        versions.confirmed("v:7", 2);
        assertThatThrownBy(() -> versions.check("v:7", 1, ReadObject.class)).isInstanceOfSatisfying(RpcException.class,
                e -> assertThat(e.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        assertThatThrownBy(() -> new XLocVersions(store).check("v:7", 1, WriteObject.class))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.XLOC_OUTDATED));
        versions.confirmed("v:7", 1);
        assertThat(versions.newest("v:7")).as("a confirmation never lowers it").isEqualTo(2);
    }
}
