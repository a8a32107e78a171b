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
    /** Per replica: joined and being filled (common.proto Replica.filling). */
    private final List<Boolean> filling;

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

    private ReplicaChain(List<List<String>> replicas, List<Boolean> filling) {
        this.replicas = replicas;
        this.filling = filling;
    }

    /** The chains of an XLoc; IllegalArgumentException naming the problem when it has none or uneven replicas. */
    public static ReplicaChain of(XLocSet xlocs) {
        if (xlocs.getReplicasCount() == 0) {
            throw new IllegalArgumentException("the XLoc (version " + xlocs.getVersion() + ") lists no replica");
        }
        List<List<String>> replicas = new ArrayList<>(xlocs.getReplicasCount());
        List<Boolean> filling = new ArrayList<>(xlocs.getReplicasCount());
        int width = xlocs.getReplicas(0).getOsdUuidsCount();
        for (Replica replica : xlocs.getReplicasList()) {
            if (replica.getOsdUuidsCount() != width || width == 0) {
                throw new IllegalArgumentException("the XLoc (version " + xlocs.getVersion() + ") has replicas of "
                        + "different or zero widths: " + xlocs.getReplicasList().stream()
                                .map(Replica::getOsdUuidsCount).toList());
            }
            replicas.add(List.copyOf(replica.getOsdUuidsList()));
            filling.add(replica.getFilling());
        }
        if (filling.get(filling.size() - 1) && filling.size() > 1) {
            throw new IllegalArgumentException("the XLoc (version " + xlocs.getVersion() + ") marks its tail replica as"
                    + " filling; a filling replica joins before the tail and serves no reads");
        }
        return new ReplicaChain(List.copyOf(replicas), List.copyOf(filling));
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

    /**
     * The OSD a member passes a read down to (servers/osd "Consistent reads"): its successor, or the one after it
     * when the successor is filling (a filling replica serves no reads; it is never the tail); empty for the tail.
     */
    public Optional<String> readSuccessor(Member member) {
        for (int index = member.replicaIndex() + 1; index < replicas.size(); index++) {
            if (!filling.get(index)) {
                return Optional.of(replicas.get(index).get(member.stripePosition()));
            }
        }
        return Optional.empty();
    }

    /** The OSDs of one stripe position that may serve reads, head first: the chain without a filling replica. */
    public List<String> readableChainAt(int stripePosition) {
        List<String> readable = new ArrayList<>(replicas.size());
        for (int index = 0; index < replicas.size(); index++) {
            if (!filling.get(index)) {
                readable.add(replicas.get(index).get(stripePosition));
            }
        }
        return readable;
    }

    /** The OSD that forwards to a member; empty for the head. */
    public Optional<String> predecessor(Member member) {
        return member.isHead() ? Optional.empty()
                : Optional.of(replicas.get(member.replicaIndex() - 1).get(member.stripePosition()));
    }

    /**
     * Whether the member's replica joined and is being filled: it applies every update forwarded to it but holds
     * the data written before it joined only once filled, so it serves no reads.
     */
    public boolean isFilling(Member member) {
        return filling.get(member.replicaIndex());
    }

    /**
     * Where a filling member copies its data from: its predecessor, which applied every update before forwarding
     * it (so what it holds includes everything forwarded to the member so far); the successor for a head (a file
     * that had one replica), whose updates all enter at the member itself. Empty when the member is not filling.
     */
    public Optional<String> fillSource(Member member) {
        if (!isFilling(member)) {
            return Optional.empty();
        }
        return member.isHead() ? successor(member) : predecessor(member);
    }

    /** The index of the replica marked filling, if any (at most one at a time, by the MRC's rule). */
    public Optional<Integer> fillingReplica() {
        int index = filling.indexOf(Boolean.TRUE);
        return index < 0 ? Optional.empty() : Optional.of(index);
    }

    /** The whole chain of one stripe position, head first. */
    public List<String> chainAt(int stripePosition) {
        return replicas.stream().map(replica -> replica.get(stripePosition)).toList();
    }
}
