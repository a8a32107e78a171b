/**
 * The Java client library: {@link org.xtreemfs.client.Client} (one per process and DIR), {@link
 * org.xtreemfs.client.Volume} (the POSIX-shaped namespace, answered by the volume's MRC) and {@link
 * org.xtreemfs.client.FileHandle} (striped object I/O directly on the OSDs). Invariant: every failure reaches
 * the caller as an {@link org.xtreemfs.client.XtreemFSException} carrying a POSIX errno and naming the path.
 */
package org.xtreemfs.client;
