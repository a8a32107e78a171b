package org.xtreemfs.qos.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.Units;
import org.xtreemfs.qos.scheduler.Admission;
import org.xtreemfs.qos.scheduler.ClusterState;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * Closes the loop between admission and the device: an OSD filled with the reservations the scheduler admits
 * against the built-in profile is driven by the device model with one stream per volume, each sending at its
 * reserved rate (sequential: 128 KiB requests in order on the volume's own file, one outstanding, as the OSD's
 * storage lane serves a file; random: 4 KiB at random offsets of the volume's own 16 files, up to 32
 * outstanding), through the same device layout the OSD's emulation uses. Every stream must complete at least
 * what its reservation promised over the run, less what may still be in flight and what fell due during the
 * first {@value #START_ALLOWANCE_NANOS} ns (the device's first seek and rotation, from an idle start). Random streams get a
 * {@value #RANDOM_SPREAD_ALLOWANCE} allowance: an HDD's IOPS depend on the seek distances between the files in
 * use, and the volumes' files lie elsewhere than the calibration's (measured: 1.7 % short at worst).
 */
class AdmittedReservationsAreDeliverableTest {
    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final long CAPACITY_BYTES = Units.gibibytes(1);
    private static final double RANDOM_SPREAD_ALLOWANCE = 0.03;
    private static final long START_ALLOWANCE_NANOS = 50_000_000;

    @Test
    void equalSequentialReservationsFillingAnHddAreDelivered() {
        // Proves the HDD curve holds at every stream count the scheduler admits: each share is served.
        for (int volumes : new int[] {1, 2, 3, 4, 6, 8, 12, 16}) {
            assertDelivered(WriteBackCache.osdHdd7200(), OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL),
                    equalShares(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL), ReservationType.SEQUENTIAL, volumes),
                    30 * SECOND_NANOS);
        }
    }

    @Test
    void equalSequentialReservationsFillingAnSsdAreDelivered() {
        // Proves the SSD curve: shares admitted at 1..16 streams are served.
        for (int volumes : new int[] {1, 2, 3, 4, 8, 16}) {
            assertDelivered(SsdModel.sata(), OsdProfiles.sataSsd(OsdUsageType.SEQUENTIAL),
                    equalShares(OsdProfiles.sataSsd(OsdUsageType.SEQUENTIAL), ReservationType.SEQUENTIAL, volumes),
                    5 * SECOND_NANOS);
        }
    }

    @Test
    void randomReservationsFillingAnHddOrSsdAreDelivered() {
        // Proves the random IOPS figure: every admitted share of it is served, on either device.
        for (int volumes : new int[] {1, 2, 4, 8}) {
            assertDelivered(WriteBackCache.osdHdd7200(), OsdProfiles.hdd7200(OsdUsageType.RANDOM),
                    equalShares(OsdProfiles.hdd7200(OsdUsageType.RANDOM), ReservationType.RANDOM, volumes),
                    60 * SECOND_NANOS);
            assertDelivered(SsdModel.sata(), OsdProfiles.sataSsd(OsdUsageType.RANDOM),
                    equalShares(OsdProfiles.sataSsd(OsdUsageType.RANDOM), ReservationType.RANDOM, volumes),
                    2 * SECOND_NANOS);
        }
    }

    @Test
    void mixedSizesAdmittedUntilTheOsdIsFullAreDelivered() {
        // Proves delivery for unequal reservations, as the scheduler admits them one by one (seeded sizes).
        for (long seed = 1; seed <= 4; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            assertDelivered(WriteBackCache.osdHdd7200(), OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL),
                    admitUntilFull(OsdProfiles.hdd7200(OsdUsageType.SEQUENTIAL), ReservationType.SEQUENTIAL, random),
                    30 * SECOND_NANOS);
            assertDelivered(WriteBackCache.osdHdd7200(), OsdProfiles.hdd7200(OsdUsageType.RANDOM),
                    admitUntilFull(OsdProfiles.hdd7200(OsdUsageType.RANDOM), ReservationType.RANDOM, random),
                    60 * SECOND_NANOS);
            assertDelivered(SsdModel.sata(), OsdProfiles.sataSsd(OsdUsageType.SEQUENTIAL),
                    admitUntilFull(OsdProfiles.sataSsd(OsdUsageType.SEQUENTIAL), ReservationType.SEQUENTIAL, random),
                    5 * SECOND_NANOS);
        }
    }

    /** {@code volumes} equal reservations that together take what the profile admits at that stream count. */
    private static List<Reservation> equalShares(OsdProfile profile, ReservationType type, int volumes) {
        List<Reservation> reservations = new ArrayList<>();
        for (int volume = 0; volume < volumes; volume++) {
            reservations.add(type == ReservationType.SEQUENTIAL
                    ? Reservation.sequential(CAPACITY_BYTES,
                            profile.sequentialThroughput().admissibleBytesPerSecond(volumes) / volumes)
                    : Reservation.random(CAPACITY_BYTES, profile.randomIops() / volumes));
        }
        return admitAll(profile, reservations);
    }

    /** Reservations of random sizes, admitted one by one until three in a row are refused. */
    private static List<Reservation> admitUntilFull(OsdProfile profile, ReservationType type, SplittableRandom random) {
        ReservationScheduler scheduler = new ReservationScheduler();
        ClusterState state = ClusterState.empty().withOsdAdded("osd", profile);
        List<Reservation> admitted = new ArrayList<>();
        for (int refusedInARow = 0, attempt = 0; refusedInARow < 3 && attempt < 200; attempt++) {
            double fraction = Math.exp(Math.log(0.01) + random.nextDouble() * Math.log(60.0)); // 1 % .. 60 %
            Reservation reservation = type == ReservationType.SEQUENTIAL
                    ? Reservation.sequential(CAPACITY_BYTES, Math.max(1,
                            (long) (profile.sequentialThroughput().admissibleBytesPerSecond(1) * fraction)))
                    : Reservation.random(CAPACITY_BYTES, Math.max(1, (long) (profile.randomIops() * fraction)));
            Admission admission = scheduler.admit(state, "volume-" + attempt, reservation);
            if (admission instanceof Admission.Admitted ok) {
                state = ok.state();
                admitted.add(reservation);
                refusedInARow = 0;
            } else {
                refusedInARow++;
            }
        }
        assertThat(admitted).isNotEmpty();
        return admitted;
    }

    private static List<Reservation> admitAll(OsdProfile profile, List<Reservation> reservations) {
        ReservationScheduler scheduler = new ReservationScheduler();
        ClusterState state = ClusterState.empty().withOsdAdded("osd", profile);
        for (int volume = 0; volume < reservations.size(); volume++) {
            Admission admission = scheduler.admit(state, "volume-" + volume, reservations.get(volume));
            assertThat(admission).as("volume %d of %s", volume, reservations).isInstanceOf(Admission.Admitted.class);
            state = ((Admission.Admitted) admission).state();
        }
        return reservations;
    }

    /** One volume's paced stream. */
    private static final class Stream {
        final int index;
        final Reservation reservation;
        final double requestsPerSecond;
        final int outstandingMax;
        final int requestBytes;
        final SplittableRandom random;
        long sent;
        long completed;
        int outstanding;

        Stream(int index, Reservation reservation) {
            this.index = index;
            this.reservation = reservation;
            boolean sequential = reservation.type() == ReservationType.SEQUENTIAL;
            this.requestBytes = sequential ? CalibrationPattern.OBJECT_SIZE_BYTES : CalibrationPattern.RANDOM_REQUEST_BYTES;
            this.requestsPerSecond = sequential ? (double) reservation.throughputBytesPerSecond() / requestBytes
                    : reservation.iops();
            this.outstandingMax = sequential ? 1 : CalibrationPattern.RANDOM_QUEUE_DEPTH;
            this.random = new SplittableRandom(index * 7919L + 1);
        }

        long dueNanos(long request) {
            return (long) Math.ceil(request * 1e9 / requestsPerSecond);
        }

        IoRequest next(long capacityBytes) {
            long objects = 64L * 1024 * 1024 / CalibrationPattern.OBJECT_SIZE_BYTES;
            if (reservation.type() == ReservationType.SEQUENTIAL) {
                return DeviceLayout.request(IoKind.WRITE, "volume-" + index, sent % objects,
                        CalibrationPattern.OBJECT_SIZE_BYTES, 0, requestBytes, capacityBytes);
            }
            long slot = random.nextLong(objects * (CalibrationPattern.OBJECT_SIZE_BYTES / requestBytes));
            return DeviceLayout.request(random.nextBoolean() ? IoKind.READ : IoKind.WRITE,
                    "volume-" + index + "-file-" + random.nextInt(CalibrationPattern.FILE_COUNT),
                    slot * requestBytes / CalibrationPattern.OBJECT_SIZE_BYTES, CalibrationPattern.OBJECT_SIZE_BYTES,
                    slot * requestBytes % CalibrationPattern.OBJECT_SIZE_BYTES, requestBytes, capacityBytes);
        }
    }

    /**
     * Runs the paced streams on the model (FIFO in order of sending, each at max(sent, next start), as the OSD's
     * emulated device serves) and checks each completed what was due less what may be in flight.
     */
    private static <S extends DeviceState> void assertDelivered(DeviceModel<S> model, OsdProfile profile,
            List<Reservation> reservations, long durationNanos) {
        List<Stream> streams = new ArrayList<>();
        for (int index = 0; index < reservations.size(); index++) {
            streams.add(new Stream(index, reservations.get(index)));
        }
        // Events {timeNanos, kind (0 completion, 1 send), stream}; completions first at equal times.
        PriorityQueue<long[]> events = new PriorityQueue<>((left, right) -> left[0] != right[0]
                ? Long.compare(left[0], right[0]) : left[1] != right[1] ? Long.compare(left[1], right[1])
                : Long.compare(left[2], right[2]));
        for (Stream stream : streams) {
            events.add(new long[] {0, 1, stream.index});
        }
        S state = model.initialState();
        while (!events.isEmpty() && events.peek()[0] < durationNanos) {
            long[] event = events.poll();
            Stream stream = streams.get((int) event[2]);
            if (event[1] == 0) {
                stream.completed++;
                stream.outstanding--;
                if (stream.outstanding == stream.outstandingMax - 1) {
                    events.add(new long[] {Math.max(event[0], stream.dueNanos(stream.sent)), 1, stream.index});
                }
                continue;
            }
            if (stream.outstanding >= stream.outstandingMax || event[0] < stream.dueNanos(stream.sent)) {
                continue; // a stale send: a completion re-schedules it
            }
            ServiceResult<S> result = model.serve(stream.next(model.capacityBytes()), state,
                    Math.max(event[0], state.nextStartNanos()));
            state = result.nextState();
            stream.sent++;
            stream.outstanding++;
            events.add(new long[] {result.completionNanos(), 0, stream.index});
            if (stream.outstanding < stream.outstandingMax) {
                events.add(new long[] {stream.dueNanos(stream.sent), 1, stream.index});
            }
        }
        for (Stream stream : streams) {
            double allowance = stream.reservation.type() == ReservationType.RANDOM ? 1 - RANDOM_SPREAD_ALLOWANCE : 1;
            long due = (long) Math.floor(stream.requestsPerSecond * durationNanos / 1e9 * allowance);
            assertThat(stream.completed)
                    .as("%s: volume %d of %d reserved %s (%.1f requests/s) completed %d of %d due in %d s",
                            profile.deviceClass(), stream.index, streams.size(), stream.reservation,
                            stream.requestsPerSecond, stream.completed, due, durationNanos / SECOND_NANOS)
                    .isGreaterThanOrEqualTo(due - stream.outstandingMax - 1
                            - (long) Math.ceil(stream.requestsPerSecond * START_ALLOWANCE_NANOS / 1e9));
        }
    }
}
