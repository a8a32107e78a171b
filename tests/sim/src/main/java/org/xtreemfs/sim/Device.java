package org.xtreemfs.sim;

import org.xtreemfs.qos.device.DeviceModel;
import org.xtreemfs.qos.device.DeviceState;
import org.xtreemfs.qos.device.IoRequest;
import org.xtreemfs.qos.device.ServiceResult;

/** A device model together with its current state: the only mutable wrapper around the pure model. */
final class Device<S extends DeviceState> {
    private DeviceModel<S> model;
    private S state;
    private long busyNanos;
    /** How much slower than nominal the model now is (the product of every slow-down so far). */
    private double slowdownFactor = 1.0;

    Device(DeviceModel<S> model) {
        this.model = model;
        this.state = model.initialState();
    }

    /** Serves the request starting at nowNanos (the caller checked {@link #nextStartNanos()}); returns completion. */
    long serve(IoRequest request, long nowNanos) {
        ServiceResult<S> result = model.serve(request, state, nowNanos);
        busyNanos += Math.max(result.completionNanos(), result.nextState().nextStartNanos()) - nowNanos;
        state = result.nextState();
        return result.completionNanos();
    }

    /** How full the model's host write-back is at {@code nowNanos}; empty for a model without one. */
    java.util.Optional<org.xtreemfs.qos.device.WriteBackLevel> writeBackLevel(long nowNanos) {
        return model.writeBackLevel(state, nowNanos);
    }

    long nextStartNanos() {
        return state.nextStartNanos();
    }

    void slowDown(double factor) {
        model = model.slowedBy(factor);
        slowdownFactor *= factor;
    }

    /** Sets the slow-down against the nominal model, whatever changes came before. */
    void slowDownTo(double factor) {
        slowDown(factor / slowdownFactor);
    }

    long capacityBytes() {
        return model.capacityBytes();
    }

    long busyNanos() {
        return busyNanos;
    }
}
