/**
 * What each volume receives from this OSD: {@link org.xtreemfs.osd.metrics.VolumeAccounting} (pure, time as a
 * parameter: 1-s windows, attainment, latency percentiles, bounded) fed by the QoS stage, and
 * {@link org.xtreemfs.osd.metrics.VolumeMetrics} presenting it on the status page and as Prometheus metrics,
 * {@link org.xtreemfs.osd.metrics.VolumeHistory} presenting its kept windows to the status server's live chart.
 */
package org.xtreemfs.osd.metrics;
