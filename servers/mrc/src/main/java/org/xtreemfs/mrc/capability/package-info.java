/**
 * XCaps: the signed, expiring capabilities the MRC hands out on open and the OSDs check on every request.
 * Invariant: every capability the MRC returns is signed over all its fields with the shared secret.
 */
package org.xtreemfs.mrc.capability;
