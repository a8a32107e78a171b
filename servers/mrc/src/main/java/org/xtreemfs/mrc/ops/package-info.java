/**
 * One class per MRC procedure, each holding its operation's whole logic: parse, prepare (caller, clock, DIR
 * data, XCap verification), apply on the metadata stage (the operation's {@code public static} logic method
 * over the {@link org.xtreemfs.mrc.metadata.Namespace} core), afterCommit, answer (issues XCaps).
 * Invariants: no handler blocks a network thread; every store change happens inside an apply step, as one
 * batch; apply steps and logic methods read no clock and no random source and issue no capability, so
 * applying is a deterministic function of (context, store).
 */
package org.xtreemfs.mrc.ops;
