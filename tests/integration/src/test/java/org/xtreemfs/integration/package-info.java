/**
 * End-to-end tests: a DIR, an MRC and OSDs started in-process on loopback ports chosen at run time, driven
 * through the Java client library and tools. Invariant: no fixed ports, every cluster under its own temp folder.
 */
package org.xtreemfs.integration;
