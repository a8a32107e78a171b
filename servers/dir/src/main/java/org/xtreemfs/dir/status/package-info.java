/**
 * The DIR's HTTP status page: services with status, heartbeat age and OSD attributes, and volumes, as
 * HTML and JSON. Read-only: it takes registry snapshots and never changes state.
 */
package org.xtreemfs.dir.status;
