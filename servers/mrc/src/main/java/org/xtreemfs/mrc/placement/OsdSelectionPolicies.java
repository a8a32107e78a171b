package org.xtreemfs.mrc.placement;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The policies a volume may name; "" selects the default ({@link SpaceAndLoadPolicy}). */
public final class OsdSelectionPolicies {
    private final Map<String, OsdSelectionPolicy> byName = new TreeMap<>();
    private final OsdSelectionPolicy defaultPolicy;

    public OsdSelectionPolicies(OsdSelectionPolicy defaultPolicy, List<OsdSelectionPolicy> others) {
        this.defaultPolicy = defaultPolicy;
        byName.put(defaultPolicy.name(), defaultPolicy);
        for (OsdSelectionPolicy policy : others) {
            if (byName.putIfAbsent(policy.name(), policy) != null) {
                throw new IllegalArgumentException("OSD selection policy " + policy.name() + " registered twice");
            }
        }
    }

    public static OsdSelectionPolicies standard(long freeSpaceMinBytes) {
        return new OsdSelectionPolicies(new SpaceAndLoadPolicy(freeSpaceMinBytes), List.of());
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
