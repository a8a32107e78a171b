/**
 * Benchmarks of the core file system: sequential I/O and metadata operations through the Java client,
 * each reported as a ratio against the same work on the raw local disk in the same run.
 */
package org.xtreemfs.bench.core;
