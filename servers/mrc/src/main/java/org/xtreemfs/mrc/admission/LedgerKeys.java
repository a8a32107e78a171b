package org.xtreemfs.mrc.admission;

import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.Keys;

/**
 * The ledger's part of the MRC's key space (record kind 'Q', see metadata.KvLayout):
 * <pre>
 * 'Q' 'P' volumeId  -> QosPlacement (protobuf): an admitted volume's reservation and stripe OSDs
 * 'Q' 'O' osdUuid   -> OsdProfile (protobuf): the profile the ledger admits against on that OSD
 * </pre>
 */
final class LedgerKeys {
    private static final byte[] PLACEMENT = {'Q', 'P'};
    private static final byte[] OSD = {'Q', 'O'};

    private LedgerKeys() {}

    static byte[] placement(String volumeId) {
        return Keys.concat(PLACEMENT, Keys.utf8(volumeId));
    }

    static KeyRange allPlacements() {
        return KeyRange.prefix(PLACEMENT);
    }

    static byte[] osd(String uuid) {
        return Keys.concat(OSD, Keys.utf8(uuid));
    }

    static KeyRange allOsds() {
        return KeyRange.prefix(OSD);
    }
}
