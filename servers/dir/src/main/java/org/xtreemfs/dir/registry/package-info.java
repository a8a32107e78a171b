/**
 * The DIR's domain state: services with their address mappings and volumes with their MRC. Every
 * change is written to the KV store before the in-memory view changes, so what a caller saw
 * acknowledged survives a restart; a service's DEAD status is computed from the clock at read time,
 * never stored.
 */
package org.xtreemfs.dir.registry;
