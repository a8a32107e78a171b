package org.xtreemfs.foundation.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;

/**
 * A file's replicas as chains (common.proto XLocSet): for stripe position p, replicas[0].osd_uuids[p] (the head)
 * forwards to replicas[1].osd_uuids[p], and so on to replicas[N-1].osd_uuids[p] (the tail). Writes, truncates,
 * unlinks and fsyncs enter at the head; reads may go to any replica (the client's read routing picks one), because
 * a member serves a read from its own copy only when every update of the file it holds has been acknowledged by
 * its successor (servers/osd README, "Consistent reads"). The one reader of the chain order for the OSD and the
 * Java client (the C++ client mirrors it in cpp/src/client/replica_chain.h).
 *
 * <p>Invariant (checked by {@link #of}): at least one replica, every replica lists the same number of OSDs.
 */
public final class ReplicaChain {
    private final List<List<String>> replicas;

    /** Where one OSD sits: which replica (0 = head) and which stripe position. */
    public record Member(int replicaIndex, int stripePosition, int length) {
        public boolean isHead() {
            return replicaIndex == 0;
        }

        public boolean isTail() {
            return replicaIndex == length - 1;
        }

        /** A chain of one: the file is not replicated. */
        public boolean isSole() {
            return length == 1;
        }
    }

    private ReplicaChain(List<List<String>> replicas) {
        this.replicas = replicas;
    }

    /** The chains of an XLoc; IllegalArgumentException naming the problem when it has none or uneven replicas. */
    public static ReplicaChain of(XLocSet xlocs) {
        if (xlocs.getReplicasCount() == 0) {
            throw new IllegalArgumentException("the XLoc (version " + xlocs.getVersion() + ") lists no replica");
        }
        List<List<String>> replicas = new ArrayList<>(xlocs.getReplicasCount());
        int width = xlocs.getReplicas(0).getOsdUuidsCount();
        for (Replica replica : xlocs.getReplicasList()) {
            if (replica.getOsdUuidsCount() != width || width == 0) {
                throw new IllegalArgumentException("the XLoc (version " + xlocs.getVersion() + ") has replicas of "
                        + "different or zero widths: " + xlocs.getReplicasList().stream()
                                .map(Replica::getOsdUuidsCount).toList());
            }
            replicas.add(List.copyOf(replica.getOsdUuidsList()));
        }
        return new ReplicaChain(List.copyOf(replicas));
    }

    /** The number of replicas (1: not replicated). */
    public int length() {
        return replicas.size();
    }

    public int width() {
        return replicas.get(0).size();
    }

    /** The OSDs clients write to, truncate and unlink at: the head replica's, by stripe position. */
    public List<String> headOsds() {
        return replicas.get(0);
    }

    /** The tail replica's OSDs, by stripe position. */
    public List<String> tailOsds() {
        return replicas.get(replicas.size() - 1);
    }

    /** Replica {@code replicaIndex}'s OSDs (0 = head), by stripe position. */
    public List<String> replicaOsds(int replicaIndex) {
        return replicas.get(replicaIndex);
    }

    /** Where {@code osdUuid} sits in the chains; empty when the XLoc does not name it. */
    public Optional<Member> member(String osdUuid) {
        for (int replica = 0; replica < replicas.size(); replica++) {
            int position = replicas.get(replica).indexOf(osdUuid);
            if (position >= 0) {
                return Optional.of(new Member(replica, position, replicas.size()));
            }
        }
        return Optional.empty();
    }

    /** The OSD a member forwards to; empty for the tail. */
    public Optional<String> successor(Member member) {
        return member.isTail() ? Optional.empty()
                : Optional.of(replicas.get(member.replicaIndex() + 1).get(member.stripePosition()));
    }

    /** The whole chain of one stripe position, head first. */
    public List<String> chainAt(int stripePosition) {
        return replicas.stream().map(replica -> replica.get(stripePosition)).toList();
    }
}
