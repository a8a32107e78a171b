/**
 * Registration at the DIR and the periodic heartbeat carrying the OSD's type, device class, space and
 * load. Invariant: a DIR outage never stops the OSD serving; registration is retried every period.
 */
package org.xtreemfs.osd.heartbeat;
