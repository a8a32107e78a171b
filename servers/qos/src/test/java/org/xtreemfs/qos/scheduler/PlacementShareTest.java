package org.xtreemfs.qos.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.VolumeShare;

class PlacementShareTest {

  @Test
  void theLimitIsDividedOverTheStripeWidthLikeTheReservationAndTheWeightIsNot() {
    // Proves each stripe OSD enforces limit / width (rounded up like the reservation) and the whole weight.
    Reservation reservation = new Reservation(ReservationType.SEQUENTIAL, 3000, 1000, 0, 4, 2000, 0);
    Placement placement = new Placement("v", reservation, List.of("a", "b", "c"));
    assertThat(placement.share()).isEqualTo(new VolumeShare(ReservationType.SEQUENTIAL, 334, 0, 4, 667, 0));
    Reservation random = new Reservation(ReservationType.RANDOM, 3000, 0, 100, 1, 0, 100);
    // A limit equal to the reservation stays equal per OSD: both round up the same way.
    assertThat(new Placement("r", random, List.of("a", "b", "c")).share())
        .isEqualTo(new VolumeShare(ReservationType.RANDOM, 0, 34, 1, 0, 34));
    Reservation unlimited = new Reservation(ReservationType.BEST_EFFORT, 3000, 0, 0);
    assertThat(new Placement("u", unlimited, List.of("a", "b")).share()).isEqualTo(VolumeShare.BEST_EFFORT);
  }
}
