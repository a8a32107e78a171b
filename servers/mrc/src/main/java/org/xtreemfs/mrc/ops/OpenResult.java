package org.xtreemfs.mrc.ops;

import java.util.Optional;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * What an open's apply step hands to its answer, which issues the capability: the file's record after
 * the open (layout allocated for regular files), the access mode the open flags ask for, and the volume's
 * reservation share from the ledger (empty without reservation), which the capability carries.
 * {@code credentialsNeeded} is false for directories and special files, which have no objects on OSDs.
 * {@code directory}: when the open created the file, its directory's Stat as the batch leaves it (the answer's
 * {@code directory_stat}); empty otherwise and in a result decoded from the outcome journal (a repeat's answer
 * carries none, since the directory may have changed since).
 */
public record OpenResult(String volumeId, InodeRecord record, AccessMode accessMode, boolean credentialsNeeded,
        Optional<VolumeShare> share, Optional<Stat> directory) {}
