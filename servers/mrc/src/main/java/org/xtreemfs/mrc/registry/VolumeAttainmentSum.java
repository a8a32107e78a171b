package org.xtreemfs.mrc.registry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.xtreemfs.interfaces.common.VolumeAttainmentReport;
import org.xtreemfs.interfaces.mrc.OsdVolumeFigures;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.mrc.VolumeAttainment;
import org.xtreemfs.mrc.admission.OsdReport;

/**
 * A volume's attainment summed over its OSDs, from what each OSD put in its latest DIR heartbeat
 * ({@code OsdAttributes.volume_attainment}); so the figures are at most one OSD heartbeat period (plus the 1-s
 * window being measured) old, and asking costs the MRC no call to any OSD.
 *
 * <p>Rules (the one place they live): only OSDs the DIR shows available are summed; a dead OSD's last figures
 * are listed per OSD but delivered nothing since, so they would flatter the sum. Reserved, achieved and queue
 * depth are sums; the p99 latency is the worst OSD's. The fraction of windows met is the worst OSD's
 * (windows met / windows with demand): OSD windows are 1-s windows of each OSD's own clock, not aligned with
 * each other, so the MRC cannot judge one second on all OSDs at once; each OSD of a placement carries an
 * equal share and a striped stream moves at the pace of its slowest OSD, so the volume met its reservation
 * at most as often as its worst OSD met its share (an upper bound, never an average that hides a failing
 * OSD behind a good one). Figures are in the cost unit of the volume's OSDs; OSDs of different units (not a
 * placement the MRC makes) give the unit {@code mixed}.
 *
 * <p>Pure: a function of the reports and the volumes, so the metadata operation that calls it stays
 * deterministic.
 */
public final class VolumeAttainmentSum {
    /** The unit of a volume whose reporting OSDs disagree on their cost unit. */
    public static final String MIXED_COST_UNIT = "mixed";

    private VolumeAttainmentSum() {}

    /**
     * One entry per given volume that an OSD reports or that has an admitted placement, by volume id.
     *
     * @param placements a volume id's admitted stripe OSDs (empty for a volume without reservation)
     */
    public static List<VolumeAttainment> sum(List<OsdReport> reports, List<Volume> volumes,
            Function<String, Optional<List<String>>> placements) {
        List<VolumeAttainment> sums = new ArrayList<>();
        List<Volume> byId = new ArrayList<>(volumes);
        byId.sort(Comparator.comparing(Volume::getId));
        List<OsdReport> byUuid = new ArrayList<>(reports);
        byUuid.sort(Comparator.comparing(OsdReport::uuid));
        for (Volume volume : byId) {
            List<String> placed = placements.apply(volume.getId()).orElse(List.of());
            VolumeAttainment sum = sum(volume, placed, byUuid);
            if (sum.getOsdsCount() > 0 || !placed.isEmpty()) {
                sums.add(sum);
            }
        }
        return sums;
    }

    private static VolumeAttainment sum(Volume volume, List<String> placed, List<OsdReport> reports) {
        VolumeAttainment.Builder sum = VolumeAttainment.newBuilder().setVolumeId(volume.getId())
                .setVolumeName(volume.getName());
        Set<String> units = new LinkedHashSet<>();
        Set<String> notReporting = new LinkedHashSet<>(placed);
        double worstP99Ms = -1;
        double worstAttainment = 2;
        for (OsdReport osd : reports) {
            Optional<VolumeAttainmentReport> figures = osd.volumeAttainment().getVolumesList().stream()
                    .filter(report -> report.getVolumeId().equals(volume.getId())).findFirst();
            if (figures.isEmpty()) {
                continue;
            }
            VolumeAttainmentReport report = figures.get();
            sum.addOsds(OsdVolumeFigures.newBuilder().setOsdUuid(osd.uuid()).setAvailable(osd.available())
                    .setLastHeartbeatMs(osd.lastHeartbeatMs()).setFigures(report));
            if (!osd.available()) {
                continue;
            }
            notReporting.remove(osd.uuid());
            units.add(osd.volumeAttainment().getCostUnit());
            sum.setReservedCostPerSecond(sum.getReservedCostPerSecond() + report.getReservedCostPerSecond());
            sum.setAchievedCostPerSecond(sum.getAchievedCostPerSecond() + report.getAchievedCostPerSecond());
            sum.setQueueDepthRequests(sum.getQueueDepthRequests() + report.getQueueDepthRequests());
            if (report.hasLatencyP99Ms()) {
                worstP99Ms = Math.max(worstP99Ms, report.getLatencyP99Ms());
            }
            if (report.getWindowsWithDemand() > 0) {
                worstAttainment = Math.min(worstAttainment,
                        (double) report.getWindowsMet() / report.getWindowsWithDemand());
            }
        }
        if (units.size() == 1) {
            sum.setCostUnit(units.iterator().next());
        } else if (units.size() > 1) {
            sum.setCostUnit(MIXED_COST_UNIT);
        }
        if (worstP99Ms >= 0) {
            sum.setLatencyP99Ms(worstP99Ms);
        }
        if (worstAttainment <= 1) {
            sum.setAttainment(worstAttainment);
        }
        return sum.addAllPlacedOsdsNotReporting(notReporting).build();
    }
}
