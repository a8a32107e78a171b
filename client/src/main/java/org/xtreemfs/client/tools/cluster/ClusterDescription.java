package org.xtreemfs.client.tools.cluster;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a local cluster is made of: one DIR, one MRC and these OSDs, each server with settings on top of the
 * launcher's defaults. {@code statusPorts}: give every status page a port chosen now (so status can show
 * it) instead of letting the server pick one nobody learns.
 */
public record ClusterDescription(List<OsdDescription> osds, Map<String, String> dirSettings,
        Map<String, String> mrcSettings, boolean statusPorts) {

    public ClusterDescription {
        osds = List.copyOf(osds);
        dirSettings = Map.copyOf(dirSettings);
        mrcSettings = Map.copyOf(mrcSettings);
        Set<String> names = new HashSet<>();
        for (OsdDescription osd : osds) {
            if (!names.add(osd.name())) {
                throw new IllegalArgumentException("two OSDs are named '" + osd.name() + "'");
            }
        }
    }
}
