/**
 * The OSD pipeline: preprocessing (capability check) → QoS (queueing policy, bounded) → storage (ordered per
 * file). Messages are typed records ({@link org.xtreemfs.osd.stages.OsdRequest},
 * {@link org.xtreemfs.osd.stages.StorageWork}); every queue is bounded and rejects with OVERLOADED when full.
 */
package org.xtreemfs.osd.stages;
