package org.xtreemfs.mrc.metadata;

import java.util.List;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * The trusted identity of the client that sent a request (XtreemFS's default mode: the MRC believes
 * what the client says). Root (uid 0) bypasses permission checks as in Linux.
 */
public record Caller(String username, int uid, int gid, List<Integer> supplementaryGids) {
    public Caller {
        username = username == null ? "" : username;
        supplementaryGids = List.copyOf(supplementaryGids);
    }

    public static Caller of(UserCredentials credentials) {
        return new Caller(credentials.getUsername(), credentials.getUid(), credentials.getGid(),
                credentials.getSupplementaryGidsList());
    }

    public static Caller root() {
        return new Caller("root", 0, 0, List.of());
    }

    public boolean isRoot() {
        return uid == 0;
    }

    public boolean isInGroup(int group) {
        return gid == group || supplementaryGids.contains(group);
    }
}
