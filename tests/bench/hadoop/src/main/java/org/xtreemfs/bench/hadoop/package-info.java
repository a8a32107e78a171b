/** The Hadoop adapter's TestDFSIO-like benchmark (make bench), against the Java client and the local disk. */
package org.xtreemfs.bench.hadoop;
