package org.xtreemfs.qos.scheduler;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.Units;

/**
 * Why a reservation was not admitted, as a value the MRC can return to the tool.
 *
 * @param shortfalls for each dimension of the reservation's type, how much less of it would be admitted with
 *     the other dimensions as requested; empty for a duplicate volume id
 * @param largestAdmissible the request scaled down uniformly in all its dimensions to the largest size that
 *     would be admitted now, if any size would
 */
public record Rejection(String volumeId, Reservation requested, Reason reason, List<Shortfall> shortfalls,
    Optional<Reservation> largestAdmissible, int replicas, int matchingOsds) {

  /** A rejection of an unreplicated request (the OSD counts matter only for TOO_FEW_OSDS_FOR_REPLICAS). */
  public Rejection(String volumeId, Reservation requested, Reason reason, List<Shortfall> shortfalls,
      Optional<Reservation> largestAdmissible) {
    this(volumeId, requested, reason, shortfalls, largestAdmissible, 1, 0);
  }

  public enum Reason {
    /** A placement for this volume id exists already (a retried request, or two volumes with one id). */
    DUPLICATE_VOLUME_ID,
    /** No OSD of a type that accepts the reservation is registered. */
    NO_MATCHING_OSD,
    /** Matching OSDs exist but none, and no stripe over at most the policy's width, has room. */
    INSUFFICIENT_RESOURCES,
    /** A changed reservation does not fit the OSDs the volume is already placed on. */
    STRIPE_FULL,
    /** Fewer available OSDs accept the reservation than the replicas asked for (each copy needs its own OSD). */
    TOO_FEW_OSDS_FOR_REPLICAS
  }

  public Rejection {
    Objects.requireNonNull(volumeId, "volumeId");
    Objects.requireNonNull(requested, "requested");
    Objects.requireNonNull(reason, "reason");
    shortfalls = List.copyOf(shortfalls);
    Objects.requireNonNull(largestAdmissible, "largestAdmissible");
  }

  /** One line for a tool or log: what was refused, which dimensions are short and by how much, what would fit. */
  public String message() {
    StringBuilder text = new StringBuilder("volume ").append(volumeId).append(" (").append(requested)
        .append(") not admitted: ");
    switch (reason) {
      case DUPLICATE_VOLUME_ID -> text.append("a reservation for this volume id exists already");
      case NO_MATCHING_OSD -> text.append("no available OSD accepts ").append(Units.displayName(requested.type()))
          .append(" volumes");
      case TOO_FEW_OSDS_FOR_REPLICAS -> text.append(replicas).append(" replicas need ").append(replicas)
          .append(" distinct OSDs but only ").append(matchingOsds).append(" available OSD")
          .append(matchingOsds == 1 ? " accepts " : "s accept ").append(Units.displayName(requested.type()))
          .append(" volumes");
      case INSUFFICIENT_RESOURCES, STRIPE_FULL -> {
        if (reason == Reason.STRIPE_FULL) {
          text.append("its OSDs have no room for the change: ");
        }
        for (int index = 0; index < shortfalls.size(); index++) {
          text.append(index == 0 ? "" : "; or ").append(shortfalls.get(index));
        }
      }
    }
    text.append(largestAdmissible.map(reservation -> (reason == Reason.STRIPE_FULL
        ? "; largest its OSDs take now: " : "; largest admissible now: ") + reservation)
        .orElse(reason == Reason.DUPLICATE_VOLUME_ID || reason == Reason.TOO_FEW_OSDS_FOR_REPLICAS ? ""
            : "; nothing of this type fits now"));
    return text.toString();
  }
}
