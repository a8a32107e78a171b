package org.xtreemfs.mrc.admission;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.Keys;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.mrc.OsdQosState;
import org.xtreemfs.interfaces.mrc.QosHeadroom;
import org.xtreemfs.interfaces.mrc.QosPlacement;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ResourceVector;
import org.xtreemfs.qos.model.VolumeShare;
import org.xtreemfs.qos.scheduler.Admission;
import org.xtreemfs.qos.scheduler.ClusterState;
import org.xtreemfs.qos.scheduler.FreeResources;
import org.xtreemfs.qos.scheduler.Osd;
import org.xtreemfs.qos.scheduler.OsdState;
import org.xtreemfs.qos.scheduler.OsdUpdate;
import org.xtreemfs.qos.scheduler.Placement;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * The MRC's record of admitted reservations: every OSD it admits against (with the profile it admitted
 * against) and every volume's placement, as a qos.scheduler {@link ClusterState}, kept in the KV store.
 *
 * <p>Decisions ({@link #admit}, {@link #readmit}, {@link #release}) are pure: they take the DIR's report
 * gathered before the operation and return a {@link LedgerChange}; the caller writes it in its operation's
 * batch and {@link #publish}es it after the commit. Mutations run on the MRC's single metadata thread, which
 * serialises admissions: two volume creations that together exceed what is free cannot both be admitted.
 * After a crash the ledger is rebuilt from the store, which holds exactly the committed decisions, so a
 * reservation is neither lost nor booked twice.
 *
 * <p>OSD lifecycle: an OSD the DIR reports dead (or no longer lists) stays in the ledger with everything
 * placed on it, which is then at risk, until a replicated volume's replacement moves its share ({@link
 * #moveReplica}); it takes no new volume until it is available again. A newly
 * reported profile replaces the recorded one only if everything placed on the OSD still fits; otherwise the
 * old profile stays, and the OSD carries a warning in {@link #status}.
 */
public final class ReservationLedger {
    private final ReservationScheduler scheduler;
    /** Written only on the metadata thread; volatile so status pages on other threads see a whole state. */
    private volatile ClusterState state;
    private volatile Map<String, org.xtreemfs.interfaces.common.OsdProfile> recordedProfiles;

    /** The decision of an admission or a change: a change to publish, or the reason it was refused. */
    public sealed interface Decision {
        record Admitted(LedgerChange change, Placement placement) implements Decision {}

        record Refused(String reason) implements Decision {}
    }

    /** The ledger with the DIR's report applied: what an admission decides against. */
    private record Synced(ClusterState state, Map<String, org.xtreemfs.interfaces.common.OsdProfile> profiles,
            Map<ByteBuffer, Optional<byte[]>> writes, Set<String> unavailable, Map<String, String> warnings) {}

    private ReservationLedger(ReservationScheduler scheduler, ClusterState state,
            Map<String, org.xtreemfs.interfaces.common.OsdProfile> recordedProfiles) {
        this.scheduler = scheduler;
        this.state = state;
        this.recordedProfiles = Map.copyOf(recordedProfiles);
    }

    /**
     * The ledger as the store holds it. A record that cannot be read, or placements that do not fit their
     * OSDs, stop the MRC with the key named: starting without them would silently drop reservations.
     */
    public static ReservationLedger load(KvStore store, ReservationScheduler scheduler) {
        Map<String, org.xtreemfs.interfaces.common.OsdProfile> profiles = new TreeMap<>();
        List<Osd> osds = new ArrayList<>();
        try (KvIterator iterator = store.iterator(LedgerKeys.allOsds())) {
            while (iterator.hasNext()) {
                KvEntry entry = iterator.next();
                String uuid = suffix(entry.key());
                try {
                    org.xtreemfs.interfaces.common.OsdProfile wire =
                            org.xtreemfs.interfaces.common.OsdProfile.parseFrom(entry.value());
                    osds.add(new Osd(uuid, QosWire.profile(wire)));
                    profiles.put(uuid, wire);
                } catch (InvalidProtocolBufferException | IllegalArgumentException corrupt) {
                    throw new IllegalStateException("reservation ledger record " + Keys.toDebugString(entry.key())
                            + " is corrupt: " + corrupt.getMessage(), corrupt);
                }
            }
        }
        List<Placement> placements = new ArrayList<>();
        try (KvIterator iterator = store.iterator(LedgerKeys.allPlacements())) {
            while (iterator.hasNext()) {
                KvEntry entry = iterator.next();
                try {
                    QosPlacement wire = QosPlacement.parseFrom(entry.value());
                    Reservation reservation = QosWire.reservation(wire.getReservation()).orElseThrow(
                            () -> new IllegalArgumentException("placement without reservation"));
                    placements.add(new Placement(suffix(entry.key()), reservation, wire.getOsdUuidsList(),
                            Math.max(1, wire.getReplicas())));
                } catch (InvalidProtocolBufferException | IllegalArgumentException corrupt) {
                    throw new IllegalStateException("reservation ledger record " + Keys.toDebugString(entry.key())
                            + " is corrupt: " + corrupt.getMessage(), corrupt);
                }
            }
        }
        try {
            return new ReservationLedger(scheduler, ClusterState.rebuild(osds, placements), profiles);
        } catch (IllegalArgumentException inconsistent) {
            throw new IllegalStateException("the reservation ledger does not add up: " + inconsistent.getMessage(),
                    inconsistent);
        }
    }

    /** Admits a new volume's reservation on the OSDs available now, or says why not and what would fit. */
    public Decision admit(String volumeId, String volumeName, Reservation reservation, List<OsdReport> reports) {
        return admit(volumeId, volumeName, reservation, reports, 1);
    }

    /**
     * Admits a reservation for a volume whose files keep {@code replicas} copies: every copy's OSD admits the
     * full per-position share (each replica of a chain applies every write), on distinct OSDs.
     */
    public Decision admit(String volumeId, String volumeName, Reservation reservation, List<OsdReport> reports,
            int replicas) {
        Synced synced = sync(reports);
        Admission admission = scheduler.admit(synced.state(), volumeId, reservation, synced.unavailable(), replicas);
        if (admission instanceof Admission.Admitted admitted) {
            return admitted(synced, volumeId, admitted);
        }
        String reason = ((Admission.Rejected) admission).rejection().message().replace("volume " + volumeId,
                "volume '" + volumeName + "'");
        return new Decision.Refused(reason + context(synced, reservation.type(), reports));
    }

    /**
     * Changes an admitted volume's reservation on the OSDs it is placed on (its files are striped over them);
     * refused when they have no room, or when the type would change.
     */
    public Decision readmit(String volumeId, String volumeName, Reservation reservation, List<OsdReport> reports) {
        Synced synced = sync(reports);
        Placement current = synced.state().placement(volumeId).orElse(null);
        if (current == null) {
            return new Decision.Refused("volume '" + volumeName + "' has no reservation to change; a reservation"
                    + " is admitted when the volume is created");
        }
        if (current.reservation().type() != reservation.type()) {
            return new Decision.Refused("volume '" + volumeName + "' has a " + current.reservation()
                    + " reservation; its type cannot change online (the files are laid out over "
                    + current.reservation().type() + " OSDs)");
        }
        Admission admission = scheduler.readmit(synced.state(), volumeId, reservation);
        if (admission instanceof Admission.Admitted admitted) {
            return admitted(synced, volumeId, admitted);
        }
        return new Decision.Refused(((Admission.Rejected) admission).rejection().message()
                .replace("volume " + volumeId, "volume '" + volumeName + "'"));
    }

    /**
     * Changes an admitted volume's replica count (its replication policy): raising it admits the volume's share on
     * new OSDs of its type, one stripe per new replica ({@link ReservationScheduler#withReplicas}), lowering it
     * releases the last replicas' shares. OSDs in {@code avoidOsds} (on hosts the volume's replicas use already) are
     * taken only when the others do not suffice. Refused naming the short dimension, as an admission is.
     */
    public Decision changeReplicas(String volumeId, String volumeName, int replicas, List<OsdReport> reports,
            Set<String> avoidOsds) {
        return replaced(volumeId, volumeName, reports, avoidOsds,
                (state, excluded) -> scheduler.withReplicas(state, volumeId, replicas, excluded));
    }

    /**
     * Moves replica {@code replica} of an admitted volume (head first) to new OSDs of its type: the share is released
     * on its OSDs (dead ones: a dead OSD serves nothing, and keeping its share too would book the volume twice) and
     * admitted on others ({@link ReservationScheduler#moveReplica}), {@code avoidOsds} as for {@link #changeReplicas}.
     */
    public Decision moveReplica(String volumeId, String volumeName, int replica, List<OsdReport> reports,
            Set<String> avoidOsds) {
        return replaced(volumeId, volumeName, reports, avoidOsds,
                (state, excluded) -> scheduler.moveReplica(state, volumeId, replica, excluded));
    }

    private Decision replaced(String volumeId, String volumeName, List<OsdReport> reports, Set<String> avoidOsds,
            java.util.function.BiFunction<ClusterState, Set<String>, Admission> decide) {
        Synced synced = sync(reports);
        Optional<Placement> current = synced.state().placement(volumeId);
        if (current.isEmpty()) {
            return new Decision.Refused("volume '" + volumeName + "' has no reservation; a reservation is admitted"
                    + " when the volume is created");
        }
        Set<String> excluded = new TreeSet<>(synced.unavailable());
        excluded.addAll(avoidOsds);
        Admission admission = decide.apply(synced.state(), excluded);
        if (admission instanceof Admission.Rejected && !avoidOsds.isEmpty()) {
            admission = decide.apply(synced.state(), synced.unavailable());
        }
        if (admission instanceof Admission.Admitted admitted) {
            return admitted(synced, volumeId, admitted);
        }
        return new Decision.Refused(((Admission.Rejected) admission).rejection().message()
                .replace("volume " + volumeId, "volume '" + volumeName + "'")
                + context(synced, current.get().reservation().type(), reports));
    }

    /** An admission's decision: the placement record joins the DIR report's writes. */
    private static Decision admitted(Synced synced, String volumeId, Admission.Admitted admitted) {
        Map<ByteBuffer, Optional<byte[]>> writes = new LinkedHashMap<>(synced.writes());
        writes.put(key(LedgerKeys.placement(volumeId)), Optional.of(record(admitted.placement()).toByteArray()));
        return new Decision.Admitted(new LedgerChange(admitted.state(), synced.profiles(), writes),
                admitted.placement());
    }

    /** Returns a deleted volume's resources; a volume without placement changes nothing. */
    public LedgerChange release(String volumeId) {
        ClusterState current = state;
        Map<ByteBuffer, Optional<byte[]>> writes = new LinkedHashMap<>();
        if (current.placement(volumeId).isPresent()) {
            writes.put(key(LedgerKeys.placement(volumeId)), Optional.empty());
        }
        return new LedgerChange(scheduler.release(current, volumeId), recordedProfiles, writes);
    }

    /** Makes a committed change the ledger's state. Call on the metadata thread, after the batch committed. */
    public void publish(LedgerChange change) {
        state = change.next();
        recordedProfiles = change.profiles();
    }

    /** The admitted placement of a volume, with the OSDs of it that the report shows unavailable. */
    public Optional<QosPlacement> placement(String volumeId, Set<String> unavailableOsds) {
        return state.placement(volumeId).map(placement -> {
            QosPlacement.Builder wire = record(placement).toBuilder();
            for (String uuid : placement.osdUuids()) {
                if (unavailableOsds.contains(uuid)) {
                    wire.addUnavailableOsdUuids(uuid);
                }
            }
            return wire.build();
        });
    }

    /** The volume as answers show it: with its admitted placement, if any, and which of its OSDs are down. */
    public org.xtreemfs.interfaces.mrc.Volume describe(org.xtreemfs.interfaces.mrc.Volume volume,
            Set<String> unavailableOsds) {
        return placement(volume.getId(), unavailableOsds).map(placement -> volume.toBuilder().setPlacement(placement)
                .build()).orElse(volume);
    }

    /**
     * The share each stripe OSD holds of the volume's admitted reservation, with the volume's weight and its
     * limit divided over the stripe width ({@link Placement#share()}), as capabilities carry it; empty for a
     * volume without reservation. Read on the metadata thread (in apply), so a capability issued after a
     * committed change (of the figures, the weight or the limit) carries the new share.
     */
    public Optional<VolumeShare> share(String volumeId) {
        return state.placement(volumeId).map(Placement::share);
    }

    /** The stripe OSDs of a volume's placement (of its head replica), empty for a volume without reservation. */
    public Optional<List<String>> stripeOsds(String volumeId) {
        return state.placement(volumeId).map(placement -> placement.replicaOsds(0));
    }

    /** The stripe OSDs of every replica of a volume's placement, head first; empty without reservation. */
    public Optional<List<List<String>>> replicaOsds(String volumeId) {
        return state.placement(volumeId).map(placement -> java.util.stream.IntStream.range(0, placement.replicas())
                .mapToObj(placement::replicaOsds).toList());
    }

    /** Every OSD of the ledger with what is reserved on it, and the headroom per type, as the DIR reports now. */
    public QosStatus status(List<OsdReport> reports) {
        Synced synced = sync(reports);
        QosStatus.Builder status = QosStatus.newBuilder();
        for (OsdState osd : synced.state().osds()) {
            ResourceVector limits = osd.limits();
            OsdQosState.Builder entry = OsdQosState.newBuilder().setUuid(osd.uuid())
                    .setAvailable(!synced.unavailable().contains(osd.uuid()))
                    .setProfile(synced.profiles().getOrDefault(osd.uuid(),
                            QosWire.toWire(osd.profile()).build()))
                    .setReservedCapacityBytes(osd.committed().capacityBytes())
                    .setReservedThroughputBytesPerSecond(osd.committed().throughputBytesPerSecond())
                    .setReservedIops(osd.committed().iops()).setSequentialStreams(osd.sequentialStreams())
                    .setLimitCapacityBytes(limits.capacityBytes())
                    .setLimitThroughputBytesPerSecond(limits.throughputBytesPerSecond())
                    .setLimitIops(limits.iops())
                    .setWarning(synced.warnings().getOrDefault(osd.uuid(), ""));
            for (Placement placement : synced.state().placementsOn(osd.uuid())) {
                entry.addVolumeIds(placement.volumeId());
            }
            status.addOsds(entry);
        }
        FreeResources free = scheduler.freeResources(synced.state(), synced.unavailable());
        for (ReservationType type : ReservationType.values()) {
            FreeResources.Headroom headroom = free.headroom(type);
            status.addFree(QosHeadroom.newBuilder().setType(QosWire.toWire(type))
                    .setCapacityBytesMax(headroom.capacityBytesMax())
                    .setThroughputBytesPerSecondMax(headroom.throughputBytesPerSecondMax())
                    .setIopsMax(headroom.iopsMax()));
        }
        return status.build();
    }

    /** One line per OSD of the ledger, for status pages: profile source, reserved against offered, volumes. */
    public List<String> summary() {
        ClusterState current = state;
        Map<String, org.xtreemfs.interfaces.common.OsdProfile> profiles = recordedProfiles;
        List<String> lines = new ArrayList<>();
        for (OsdState osd : current.osds()) {
            lines.add(osd.uuid() + " " + osd.profile().usageType() + " " + osd.profile().deviceClass() + " ("
                    + profiles.getOrDefault(osd.uuid(), org.xtreemfs.interfaces.common.OsdProfile.getDefaultInstance())
                            .getSource() + ") reserved " + osd.committed() + " of " + osd.limits() + " at "
                    + osd.sequentialStreams() + " streams, volumes " + current.placementsOn(osd.uuid()).stream()
                            .map(Placement::volumeId).toList());
        }
        return lines;
    }

    /** The OSDs the report shows unavailable (dead, or no longer listed) among those the ledger knows. */
    public Set<String> unavailable(List<OsdReport> reports) {
        return sync(reports).unavailable();
    }

    ClusterState state() {
        return state;
    }

    /**
     * Applies the DIR's report to the ledger's OSDs without publishing: new OSDs with a valid profile join;
     * a changed profile replaces the recorded one when everything placed on the OSD still fits (otherwise a
     * warning); OSDs reported dead or missing are unavailable. OSDs without a valid profile are never
     * admitted against.
     */
    private Synced sync(List<OsdReport> reports) {
        ClusterState synced = state;
        Map<String, org.xtreemfs.interfaces.common.OsdProfile> profiles = new TreeMap<>(recordedProfiles);
        Map<ByteBuffer, Optional<byte[]>> writes = new LinkedHashMap<>();
        Set<String> unavailable = new TreeSet<>();
        Map<String, String> warnings = new TreeMap<>();
        Set<String> reported = new TreeSet<>();
        List<OsdReport> ordered = new ArrayList<>(reports);
        ordered.sort(Comparator.comparing(OsdReport::uuid));
        for (OsdReport report : ordered) {
            reported.add(report.uuid());
            Optional<OsdState> known = synced.osd(report.uuid());
            if (!report.available()) {
                unavailable.add(report.uuid());
            }
            if (report.profile().isEmpty()) {
                if (known.isPresent()) {
                    warnings.put(report.uuid(), "the OSD " + report.problem() + "; its recorded profile stays");
                }
                continue;
            }
            if (known.isEmpty()) {
                synced = synced.withOsdAdded(report.uuid(), report.profile().get());
            } else if (!known.get().profile().equals(report.profile().get())) {
                OsdUpdate update = synced.withOsdUpdated(report.uuid(), report.profile().get());
                if (update instanceof OsdUpdate.Refused refused) {
                    warnings.put(report.uuid(), "its newly reported profile (" + report.wireProfile().getSource()
                            + ") is lower than what is reserved on it, so the recorded one stays: " + refused.reason());
                    continue;
                }
                synced = ((OsdUpdate.Applied) update).state();
            } else if (report.wireProfile().equals(profiles.get(report.uuid()))) {
                continue;
            }
            profiles.put(report.uuid(), report.wireProfile());
            writes.put(key(LedgerKeys.osd(report.uuid())), Optional.of(report.wireProfile().toByteArray()));
        }
        for (OsdState osd : synced.osds()) {
            if (!reported.contains(osd.uuid())) {
                unavailable.add(osd.uuid());
            }
        }
        return new Synced(synced, profiles, writes, unavailable, warnings);
    }

    /** What the scheduler's reason leaves out: OSDs of the type that are down or cannot be admitted against. */
    private static String context(Synced synced, ReservationType type, List<OsdReport> reports) {
        List<String> notes = new ArrayList<>();
        long down = synced.state().osds().stream().filter(osd -> osd.profile().usageType().accepts(type)
                && synced.unavailable().contains(osd.uuid())).count();
        if (down > 0) {
            notes.add(down + " matching OSD" + (down == 1 ? " is" : "s are") + " unavailable and not counted");
        }
        for (OsdReport report : reports) {
            if (report.profile().isEmpty()) {
                notes.add("OSD " + report.uuid() + " " + report.problem());
            }
        }
        return notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")";
    }

    private static QosPlacement record(Placement placement) {
        ResourceVector share = placement.sharePerOsd();
        // replicas stays absent (1) for an unreplicated volume, so its records keep their bytes
        return QosPlacement.newBuilder().addAllOsdUuids(placement.osdUuids())
                .setReplicas(placement.replicas() > 1 ? placement.replicas() : 0)
                .setReservation(QosWire.toWire(placement.reservation()))
                .setShareCapacityBytes(share.capacityBytes())
                .setShareThroughputBytesPerSecond(share.throughputBytesPerSecond())
                .setShareIops(share.iops()).build();
    }

    private static ByteBuffer key(byte[] key) {
        return ByteBuffer.wrap(key);
    }

    private static String suffix(byte[] key) {
        return new String(key, 2, key.length - 2, java.nio.charset.StandardCharsets.UTF_8);
    }
}
