package org.xtreemfs.qos.device;

/**
 * Outcome of serving one request. {@code completionNanos} is when the caller may acknowledge the request;
 * {@code nextState} says when the device can start the next one (read-ahead may keep an HDD busy after the
 * requested data has been delivered). Invariant: completionNanos >= the start time.
 */
public record ServiceResult<S extends DeviceState>(long completionNanos, S nextState) {}
