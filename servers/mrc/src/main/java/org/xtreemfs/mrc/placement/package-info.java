/**
 * OSD selection: which OSDs hold a new file's stripe. Policies are pure strategies over a snapshot of the
 * DIR's OSD list; invariant: a selection returns exactly the stripe width of distinct OSD uuids or fails
 * naming how many were needed and available.
 */
package org.xtreemfs.mrc.placement;
