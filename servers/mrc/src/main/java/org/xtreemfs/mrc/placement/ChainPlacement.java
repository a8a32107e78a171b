package org.xtreemfs.mrc.placement;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The OSDs of a new file with {@code replicas} copies (chain replication, common.proto XLocSet): replicas * width
 * distinct OSDs picked by the volume's policy, arranged into replicas so that each chain (the OSDs of one stripe
 * position, one per replica) spans as many distinct hosts as it can. Pure and deterministic like the policies.
 *
 * <p>Host spreading: first the policy's picks are dealt out to the chains, each chain taking the next pick on a
 * host it does not have yet; then a chain left with two members on one host swaps one of them for an unpicked
 * suitable OSD on a host the chain lacks (chosen by the policy among those), if there is one. Invariant: the
 * result has exactly {@code replicas} lists of {@code width} OSDs, all distinct.
 */
public final class ChainPlacement {
    private ChainPlacement() {}

    /**
     * @return the stripe OSDs of each replica, head first ({@code result.get(r).get(p)} is chain member r of stripe
     *     position p)
     */
    public static List<List<String>> select(OsdSelectionPolicy policy, List<OsdCandidate> candidates, int width,
            int replicas, long placementSeed) throws NotEnoughOsdsException {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1: " + replicas);
        }
        if (replicas == 1) {
            return List.of(policy.select(candidates, width, placementSeed));
        }
        List<String> picked;
        try {
            picked = policy.select(candidates, width * replicas, placementSeed);
        } catch (NotEnoughOsdsException tooFew) {
            throw new NotEnoughOsdsException(policy.name(), replicas, width, tooFew.available(), candidates.size());
        }
        Map<String, String> hostOf = new LinkedHashMap<>();
        for (OsdCandidate candidate : candidates) {
            hostOf.putIfAbsent(candidate.uuid(), candidate.hostKey());
        }
        List<List<String>> chains = deal(picked, hostOf, width, replicas);
        Set<String> used = new HashSet<>(picked);
        Set<String> allHosts = new HashSet<>(hostOf.values());
        for (List<String> chain : chains) {
            spreadHosts(chain, hostOf, allHosts, used, candidates, policy, placementSeed);
        }
        List<List<String>> byReplica = new ArrayList<>(replicas);
        for (int replica = 0; replica < replicas; replica++) {
            List<String> stripe = new ArrayList<>(width);
            for (List<String> chain : chains) {
                stripe.add(chain.get(replica));
            }
            byReplica.add(List.copyOf(stripe));
        }
        return List.copyOf(byReplica);
    }

    /** Chain by chain, member by member: the first remaining pick on a host the chain lacks, else the first one. */
    private static List<List<String>> deal(List<String> picked, Map<String, String> hostOf, int width, int replicas) {
        List<String> pool = new ArrayList<>(picked);
        List<List<String>> chains = new ArrayList<>(width);
        for (int position = 0; position < width; position++) {
            List<String> chain = new ArrayList<>(replicas);
            Set<String> hosts = new HashSet<>();
            for (int member = 0; member < replicas; member++) {
                int choice = 0;
                for (int index = 0; index < pool.size(); index++) {
                    if (!hosts.contains(hostOf.get(pool.get(index)))) {
                        choice = index;
                        break;
                    }
                }
                String osd = pool.remove(choice);
                chain.add(osd);
                hosts.add(hostOf.get(osd));
            }
            chains.add(chain);
        }
        return chains;
    }

    /** Replaces members sharing a host with unpicked OSDs on hosts the chain lacks, while there are such OSDs. */
    private static void spreadHosts(List<String> chain, Map<String, String> hostOf, Set<String> allHosts,
            Set<String> used, List<OsdCandidate> candidates, OsdSelectionPolicy policy, long placementSeed) {
        for (int member = 0; member < chain.size(); member++) {
            Set<String> hostsOfOthers = new HashSet<>();
            for (int other = 0; other < chain.size(); other++) {
                if (other != member) {
                    hostsOfOthers.add(hostOf.get(chain.get(other)));
                }
            }
            if (!hostsOfOthers.contains(hostOf.get(chain.get(member))) || hostsOfOthers.size() >= allHosts.size()) {
                continue;
            }
            List<OsdCandidate> onNewHosts = candidates.stream().filter(candidate -> !used.contains(candidate.uuid())
                    && !hostsOfOthers.contains(candidate.hostKey())).toList();
            if (onNewHosts.isEmpty()) {
                continue;
            }
            try {
                String replacement = policy.select(onNewHosts, 1, placementSeed).get(0);
                used.remove(chain.get(member));
                used.add(replacement);
                chain.set(member, replacement);
            } catch (NotEnoughOsdsException none) {
                // None of them is suitable (e.g. too full): the chain keeps the two members on one host.
            }
        }
    }
}
