/**
 * One class per MRC procedure: parse, prepare (caller, clock, DIR data), apply on the metadata stage,
 * answer. Invariant: no handler blocks a network thread; every store change happens inside an apply step.
 */
package org.xtreemfs.mrc.ops;
