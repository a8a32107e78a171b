package org.xtreemfs.mrc.placement;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The default policy: OSDs with at least {@code freeSpaceMinBytes} free (or that have not reported
 * their space yet), preferring the least loaded. Loads are compared in buckets of
 * {@link #LOAD_BUCKET_PERCENT} so small fluctuations do not pile every file onto one OSD; within the
 * chosen group files rotate by their seed, so equal OSDs fill evenly.
 */
public final class SpaceAndLoadPolicy implements OsdSelectionPolicy {
    public static final String NAME = "space-and-load";
    static final int LOAD_BUCKET_PERCENT = 10;

    private final long freeSpaceMinBytes;
    // Built once and the duplicate check a loop: select runs for every create, where on C1 (the MRC's JIT then) a
    // stream and comparators built per call cost about 1 % of its CPU (tests/bench/fuse/README.md, session 15).
    private static final Comparator<OsdCandidate> BY_UUID = Comparator.comparing(OsdCandidate::uuid);
    private static final Comparator<OsdCandidate> BY_LOAD_BUCKET_THEN_UUID = Comparator
            .comparingInt((OsdCandidate c) -> c.loadPercent() / LOAD_BUCKET_PERCENT).thenComparing(BY_UUID);

    public SpaceAndLoadPolicy(long freeSpaceMinBytes) {
        if (freeSpaceMinBytes < 0) {
            throw new IllegalArgumentException("freeSpaceMinBytes must not be negative: " + freeSpaceMinBytes);
        }
        this.freeSpaceMinBytes = freeSpaceMinBytes;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<String> select(List<OsdCandidate> candidates, int width, long placementSeed)
            throws NotEnoughOsdsException {
        if (width < 1) {
            throw new IllegalArgumentException("stripe width must be at least 1: " + width);
        }
        List<OsdCandidate> suitable = new ArrayList<>();
        for (OsdCandidate candidate : candidates) {
            if (!candidate.reportsSpace() || candidate.freeBytes() >= freeSpaceMinBytes) {
                if (!hasUuid(suitable, candidate.uuid())) {
                    suitable.add(candidate);
                }
            }
        }
        if (suitable.size() < width) {
            throw new NotEnoughOsdsException(NAME, width, suitable.size(), candidates.size());
        }
        suitable.sort(BY_LOAD_BUCKET_THEN_UUID);
        // The group: every OSD in the least-loaded buckets, grown bucket by bucket until it can hold the stripe.
        int groupSize = width;
        int lastBucket = suitable.get(width - 1).loadPercent() / LOAD_BUCKET_PERCENT;
        while (groupSize < suitable.size() && suitable.get(groupSize).loadPercent() / LOAD_BUCKET_PERCENT == lastBucket) {
            groupSize++;
        }
        List<OsdCandidate> group = new ArrayList<>(suitable.subList(0, groupSize));
        group.sort(BY_UUID);
        int start = (int) Math.floorMod(placementSeed, (long) group.size());
        List<String> chosen = new ArrayList<>(width);
        for (int i = 0; i < width; i++) {
            chosen.add(group.get((start + i) % group.size()).uuid());
        }
        return chosen;
    }

    private static boolean hasUuid(List<OsdCandidate> candidates, String uuid) {
        for (OsdCandidate candidate : candidates) {
            if (candidate.uuid().equals(uuid)) {
                return true;
            }
        }
        return false;
    }
}
