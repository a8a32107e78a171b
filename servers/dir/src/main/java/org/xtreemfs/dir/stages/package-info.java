/**
 * The DIR's stages. The registry stage is the only place registry state changes: one worker, a bounded
 * queue, OVERLOADED when full; network threads only parse requests and queue them.
 */
package org.xtreemfs.dir.stages;
