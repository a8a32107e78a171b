package org.xtreemfs.mrc.ops;

import java.util.Optional;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * What an open's apply step hands to its answer, which issues the capability: the file's record after
 * the open (layout allocated for regular files), the access mode the open flags ask for, and the volume's
 * reservation share from the ledger (empty without reservation), which the capability carries.
 * {@code credentialsNeeded} is false for directories and special files, which have no objects on OSDs.
 */
public record OpenResult(String volumeId, InodeRecord record, AccessMode accessMode, boolean credentialsNeeded,
        Optional<VolumeShare> share) {}
