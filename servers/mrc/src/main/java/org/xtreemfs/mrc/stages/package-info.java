/**
 * The MRC's stages: network threads parse and prepare requests, the single metadata stage applies them.
 * Invariant: every queue is bounded and a full queue answers OVERLOADED instead of growing.
 */
package org.xtreemfs.mrc.stages;
