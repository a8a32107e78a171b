package org.xtreemfs.qos.scheduler;

import org.xtreemfs.qos.model.OsdProfile;
import org.xtreemfs.qos.model.Reservation;

/** One step of a generated scheduler history, applied by {@link #apply}. */
sealed interface Operation {
  record Admit(String volumeId, Reservation reservation) implements Operation {}

  record Release(String volumeId) implements Operation {}

  record AddOsd(String uuid, OsdProfile profile) implements Operation {}

  record RemoveOsd(String uuid) implements Operation {}

  record UpdateOsd(String uuid, OsdProfile profile) implements Operation {}

  /** The state after this operation; an operation that does not apply (OSD already there) leaves it as is. */
  default ClusterState apply(ReservationScheduler scheduler, ClusterState state) {
    if (this instanceof Admit admit) {
      Admission admission = scheduler.admit(state, admit.volumeId(), admit.reservation());
      return admission instanceof Admission.Admitted admitted ? admitted.state() : state;
    }
    if (this instanceof Release release) {
      return scheduler.release(state, release.volumeId());
    }
    if (this instanceof AddOsd add) {
      return state.osd(add.uuid()).isPresent() ? state : state.withOsdAdded(add.uuid(), add.profile());
    }
    if (this instanceof RemoveOsd remove) {
      return state.withOsdRemoved(remove.uuid()).state();
    }
    UpdateOsd update = (UpdateOsd) this;
    return state.withOsdUpdated(update.uuid(), update.profile()) instanceof OsdUpdate.Applied applied
        ? applied.state() : state;
  }
}
