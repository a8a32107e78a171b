package org.xtreemfs.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.xtreemfs.qos.model.DeviceClass;
import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.model.OsdUsageType;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.scheduler.Admission;
import org.xtreemfs.qos.scheduler.ClusterState;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/**
 * The admission step of an OSD scenario: the MRC's reservation scheduler ({@code qos.scheduler}, the very class
 * the MRC runs) asked to admit every reserved tenant, in declaration order, on one OSD with the built-in profile
 * of the scenario's device ({@code OsdProfiles}, what the OSD registers). Best-effort and cold tenants need no
 * admission (they take what is left). What the scenario expects ({@code admission=admitted|refused|skip}) turns
 * the outcome into a check, so a scenario whose reservations the MRC would refuse cannot pass unnoticed.
 */
final class AdmissionStep {
    /** What the scenario declares: every reservation admitted (the default), some refused, or no step. */
    enum Expectation { ADMITTED, REFUSED, SKIP }

    /** A reserved tenant's request to the scheduler. */
    record Request(String tenantId, Reservation reservation) {}

    /** The scheduler's answer for one tenant: admitted, or refused with the scheduler's own message. */
    record Outcome(String tenantId, Reservation reservation, boolean admitted, String message) {}

    private AdmissionStep() {}

    /** The profile the scenario's OSD registers: the built-in one of its device, dedicated to {@code usage}. */
    static OsdProfile profile(DeviceKind device, OsdUsageType usage) {
        return OsdProfiles.builtIn(device == DeviceKind.HDD ? DeviceClass.HDD : DeviceClass.SSD, usage);
    }

    /** Admits the requests one after another on one OSD of {@code profile}; each sees the ones admitted before it. */
    static List<Outcome> admit(OsdProfile profile, List<Request> requests) {
        ReservationScheduler scheduler = new ReservationScheduler();
        ClusterState state = ClusterState.empty().withOsdAdded("osd", profile);
        List<Outcome> outcomes = new ArrayList<>();
        for (Request request : requests) {
            Admission admission = scheduler.admit(state, request.tenantId(), request.reservation());
            if (admission instanceof Admission.Admitted admitted) {
                state = admitted.state();
                outcomes.add(new Outcome(request.tenantId(), request.reservation(), true, "admitted"));
            } else {
                Admission.Rejected rejected = (Admission.Rejected) admission;
                outcomes.add(new Outcome(request.tenantId(), request.reservation(), false,
                        rejected.rejection().message()));
            }
        }
        return outcomes;
    }

    /** Reports each answer and checks it against the expectation. */
    static void report(ScenarioResult result, OsdProfile profile, Expectation expectation, List<Outcome> outcomes) {
        result.line("-- admission (qos.scheduler, one %s OSD, %s profile; expected: %s)",
                profile.usageType().name().toLowerCase(Locale.ROOT), profile.deviceClass().name().toLowerCase(Locale.ROOT),
                expectation.name().toLowerCase(Locale.ROOT));
        long refused = 0;
        for (Outcome outcome : outcomes) {
            result.line("%-12s %s", outcome.tenantId(), outcome.admitted() ? "admitted " + outcome.reservation()
                    : "REFUSED: " + outcome.message());
            refused += outcome.admitted() ? 0 : 1;
        }
        if (expectation == Expectation.REFUSED) {
            result.check("admission refuses the reservations, as the scenario declares", refused > 0,
                    "%d of %d reserved tenants refused", refused, outcomes.size());
        } else {
            result.check("admission admits every reservation (admission=refused if the scenario means to overbook)",
                    refused == 0, "%d of %d reserved tenants refused", refused, outcomes.size());
        }
    }
}
