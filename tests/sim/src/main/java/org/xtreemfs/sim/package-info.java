/**
 * Deterministic discrete-event simulator that runs the real QoS library (device models, fair queue, routing)
 * against scenario files and checks each scenario's invariant. Invariant: one seed, one result — every random
 * choice comes from a seeded generator and every event is ordered by (time, sequence).
 */
package org.xtreemfs.sim;
