/**
 * The only source of time for servers: wall-clock milliseconds for timestamps that leave the
 * process and monotonic nanoseconds for durations. Tests and the simulator substitute
 * {@link org.xtreemfs.foundation.clock.ManualClock} so time only moves when they advance it.
 */
package org.xtreemfs.foundation.clock;
