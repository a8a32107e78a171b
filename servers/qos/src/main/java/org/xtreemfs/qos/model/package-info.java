/**
 * The QoS performance model: reservations, OSD capability profiles and the one unit system they share
 * (bytes, bytes per second, 4 KiB operations per second, all as exact {@code long}s). Every value here is
 * immutable and validated on construction, so an instance that exists is a valid one.
 */
package org.xtreemfs.qos.model;
