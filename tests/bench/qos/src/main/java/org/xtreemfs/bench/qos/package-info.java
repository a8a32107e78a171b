/**
 * Benchmarks of the pure QoS library, run on demand and never by the unit tests. Every workload is generated
 * from a seed, so two runs with the same options place the same reservations in the same order.
 */
package org.xtreemfs.bench.qos;
