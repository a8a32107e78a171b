package org.xtreemfs.mrc.placement;

import java.util.List;

/**
 * Chooses the OSDs that hold a new file's stripe. Implementations are pure and deterministic: the same
 * candidates, width and seed give the same answer, so they are tested without a cluster.
 */
public interface OsdSelectionPolicy {

    /** The name volumes use to pick this policy ({@code Volume.osd_selection_policy}). */
    String name();

    /**
     * @param candidates online OSDs (status AVAILABLE) as last reported to the DIR
     * @param width the number of distinct OSDs needed (stripe positions 0..width-1 in order)
     * @param placementSeed varies per file (the inode number) so files spread over equal OSDs
     * @return {@code width} distinct OSD uuids
     */
    List<String> select(List<OsdCandidate> candidates, int width, long placementSeed)
            throws NotEnoughOsdsException;
}
