/**
 * Read routing of replicated files in the Java client: the replicas' reported loads and each open file's route,
 * around qos.routing's rules (the C++ client ports the same rules, checked by shared test vectors).
 */
package org.xtreemfs.client.routing;
