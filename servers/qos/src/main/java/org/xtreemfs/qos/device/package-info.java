/**
 * Deterministic service-time models of storage devices (HDD, SSD): given a request, the device state and the
 * start time, they return the completion time and the next state. Invariant: the same inputs always give the
 * same outputs; nothing here reads a clock or a hidden random source.
 */
package org.xtreemfs.qos.device;
