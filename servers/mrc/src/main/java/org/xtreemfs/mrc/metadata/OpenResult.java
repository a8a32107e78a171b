package org.xtreemfs.mrc.metadata;

import org.xtreemfs.interfaces.common.AccessMode;

/**
 * What an open returns to the capability issuer: the file's record after the open (layout allocated
 * for regular files) and the access mode the open flags ask for. {@code credentialsNeeded} is false for
 * directories and special files, which have no objects on OSDs.
 */
public record OpenResult(String volumeId, InodeRecord record, AccessMode accessMode, boolean credentialsNeeded) {}
