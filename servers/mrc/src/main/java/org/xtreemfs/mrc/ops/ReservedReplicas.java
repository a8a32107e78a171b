package org.xtreemfs.mrc.ops;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.LedgerChange;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.placement.OsdCandidate;

/**
 * Where a new replica of a reserved volume's file goes (MRC_ADD_REPLICA, and a dead member's replacement in
 * ReplicaFailedOp): only on OSDs that hold the volume's admitted share, so that every copy of a chain, which applies
 * every write, is backed by a reservation (servers/mrc README, "Replicas of reserved volumes"). The one rule, in order:
 * <ol>
 * <li>a replica of the volume's placement (ledger) that the file's chain does not use and whose OSDs the DIR shows
 * available: admitted already, so the ledger does not change;</li>
 * <li>else such a replica with an OSD the DIR shows unavailable is <b>moved</b>: its share is released on its OSDs and
 * admitted on OSDs of the volume's type that have room ({@link ReservationLedger#moveReplica}, the one reservation
 * scheduler), on hosts the chain does not use first; the ledger change joins the file's write batch. Moved, not kept
 * "at risk" beside the new copy: a dead OSD serves nothing, keeping its share would book the volume twice (the dead
 * OSD's room stays blocked for others if it returns), and new files of the volume would still be placed on it;</li>
 * <li>else none, with the reason: every replica of the placement is in the chain already (the volume's replication
 * must be raised first, which admits its share on more OSDs), or no OSD admits the moved share (the scheduler's
 * reason names the short dimension).</li>
 * </ol>
 * Pure: it reads the ledger and the DIR's report gathered in prepare, and returns a change for the caller's batch.
 */
final class ReservedReplicas {
    private ReservedReplicas() {}

    /** The OSDs of the new replica, one per stripe position, and the ledger change that admits them, if any. */
    record Pick(List<String> stripe, Optional<LedgerChange> admission) {}

    /** No placement replica can take the file's new replica; the message says why (naming the reservation). */
    static final class Refused extends Exception {
        Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * The placement replica for a new copy of a file of the reserved {@code volume} whose chain (as it will be, the
     * dead member removed) uses {@code chainMembers}. {@code reports}: every OSD the DIR knows, with liveness;
     * {@code online}: the available ones with their hosts.
     */
    static Pick pick(ReservationLedger ledger, Volume volume, List<OsdReport> reports, List<OsdCandidate> online,
            Set<String> chainMembers) throws Refused {
        List<List<String>> rows = ledger.replicaOsds(volume.getId()).orElseThrow(() -> new IllegalStateException(
                "volume '" + volume.getName() + "' has no admitted placement"));
        Set<String> unavailable = ledger.unavailable(reports);
        int deadRow = -1;
        for (int row = 0; row < rows.size(); row++) {
            List<String> osds = rows.get(row);
            if (osds.stream().anyMatch(chainMembers::contains)) {
                continue;
            }
            if (osds.stream().noneMatch(unavailable::contains)) {
                return new Pick(osds, Optional.empty());
            }
            if (deadRow < 0) {
                deadRow = row;
            }
        }
        if (deadRow < 0) {
            throw new Refused("volume '" + volume.getName() + "' holds its reservation on " + rows.size()
                    + " replica(s) of OSDs " + rows + ", all in the file's chain already; raise the volume's"
                    + " replication first (xtfsutil --set-replication " + (rows.size() + 1) + " on the volume), which"
                    + " admits its share on more OSDs");
        }
        List<String> moved = rows.get(deadRow);
        ReservationLedger.Decision decision = ledger.moveReplica(volume.getId(), volume.getName(), deadRow, reports,
                sameHosts(online, chainMembers));
        if (decision instanceof ReservationLedger.Decision.Refused refused) {
            throw new Refused("no OSD admits the reservation share of replica " + (deadRow + 1) + " of volume '"
                    + volume.getName() + "' (on unavailable OSD(s) " + moved + "): " + refused.reason());
        }
        ReservationLedger.Decision.Admitted admitted = (ReservationLedger.Decision.Admitted) decision;
        return new Pick(admitted.placement().replicaOsds(deadRow), Optional.of(admitted.change()));
    }

    /**
     * The online OSDs outside {@code members} on hosts that members use: a new replica goes elsewhere first (a host's
     * failure should not take two copies), and on them only when nothing else admits it.
     */
    static Set<String> sameHosts(List<OsdCandidate> online, Collection<String> members) {
        Set<String> memberHosts = new HashSet<>();
        online.stream().filter(osd -> members.contains(osd.uuid())).forEach(osd -> memberHosts.add(osd.hostKey()));
        Set<String> sameHost = new TreeSet<>();
        online.stream().filter(osd -> !members.contains(osd.uuid()) && memberHosts.contains(osd.hostKey()))
                .forEach(osd -> sameHost.add(osd.uuid()));
        return sameHost;
    }

    /** Every OSD of a chain's replicas. */
    static Set<String> members(List<List<String>> replicas) {
        Set<String> members = new HashSet<>();
        replicas.forEach(members::addAll);
        return members;
    }

    /** Every OSD of the given replicas, in order. */
    static List<String> flatten(List<List<String>> replicas) {
        List<String> osds = new ArrayList<>();
        replicas.forEach(osds::addAll);
        return osds;
    }
}
