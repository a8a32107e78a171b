package org.xtreemfs.osd.storage;

import org.xtreemfs.foundation.replication.ReplicaChain;

/**
 * What this OSD's copy of a file is for, by its place in the file's chain (common.proto XLocSet). FAST keeps the
 * conventional object layout with buffered writes on the head and middle and a log-structured layout on the tail:
 * {@link RoleLayoutStorage} places a file new on this OSD by its role (osd.storage.layout=role), and the tail writes
 * every update synced (see StorageWork.AuthorizedRequest#isSyncedWrite).
 */
public enum ReplicaRole {
    /** The only copy: the file is not replicated. */
    SOLE,
    /** First of a chain: takes the clients' updates and forwards them. */
    HEAD,
    /** Between head and tail: applies and forwards. */
    MIDDLE,
    /** Last of a chain: applies every update durably before the chain acknowledges it; clients read here. */
    TAIL;

    public static ReplicaRole of(ReplicaChain.Member member) {
        if (member.isSole()) {
            return SOLE;
        }
        return member.isHead() ? HEAD : member.isTail() ? TAIL : MIDDLE;
    }

    /** Whether updates must reach the disk before they are acknowledged, whatever the client asked. */
    public boolean writesDurably() {
        return this == TAIL;
    }
}
