package org.xtreemfs.mrc.placement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The policies a volume may name; "" selects the default ({@link SpaceAndLoadPolicy}); and which OSDs a volume
 * without a reservation may use ({@link #bestEffortCandidates}).
 */
public final class OsdSelectionPolicies {
    private final Map<String, OsdSelectionPolicy> byName = new TreeMap<>();
    private final OsdSelectionPolicy defaultPolicy;
    private final boolean bestEffortOnTypedOsds;

    /**
     * @param bestEffortOnTypedOsds {@code mrc.placement.bestEffortOnTypedOsds}: whether volumes without a
     *     reservation may also use typed OSDs
     */
    public OsdSelectionPolicies(OsdSelectionPolicy defaultPolicy, List<OsdSelectionPolicy> others,
            boolean bestEffortOnTypedOsds) {
        this.defaultPolicy = defaultPolicy;
        this.bestEffortOnTypedOsds = bestEffortOnTypedOsds;
        byName.put(defaultPolicy.name(), defaultPolicy);
        for (OsdSelectionPolicy policy : others) {
            if (byName.putIfAbsent(policy.name(), policy) != null) {
                throw new IllegalArgumentException("OSD selection policy " + policy.name() + " registered twice");
            }
        }
    }

    public static OsdSelectionPolicies standard(long freeSpaceMinBytes, boolean bestEffortOnTypedOsds) {
        return new OsdSelectionPolicies(new SpaceAndLoadPolicy(freeSpaceMinBytes), List.of(), bestEffortOnTypedOsds);
    }

    /**
     * The OSDs among {@code online} where files of a volume without a reservation may go: the best-effort (and
     * untyped) ones, or every one when best-effort volumes may use typed OSDs. Typed OSDs stay safe for their
     * reservations either way: their fair queue serves a volume without a share only from what reservations
     * leave, and admission never counts best-effort volumes, which reserve no performance.
     */
    public List<OsdCandidate> bestEffortCandidates(List<OsdCandidate> online) {
        // Every create asks this. A loop rather than a stream: on C1 (the MRC's JIT then) the stream pipeline cost
        // 2.2 % of its CPU per create (tests/bench/fuse/README.md, session 15); with only best-effort and untyped OSDs
        // online (the usual cluster) the list is returned as it came (List.copyOf keeps an immutable list as it is).
        if (bestEffortOnTypedOsds) {
            return List.copyOf(online);
        }
        int serving = 0;
        for (OsdCandidate candidate : online) {
            if (candidate.servesBestEffort()) {
                serving++;
            }
        }
        if (serving == online.size()) {
            return List.copyOf(online);
        }
        List<OsdCandidate> candidates = new ArrayList<>(serving);
        for (OsdCandidate candidate : online) {
            if (candidate.servesBestEffort()) {
                candidates.add(candidate);
            }
        }
        return Collections.unmodifiableList(candidates);
    }

    /** The policy of that name; empty for unknown names ("" is the default). */
    public Optional<OsdSelectionPolicy> find(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of(defaultPolicy);
        }
        return Optional.ofNullable(byName.get(name));
    }

    public String names() {
        return String.join(", ", byName.keySet());
    }
}
