/**
 * Signing and checking of XCaps with a secret shared by the MRC and the OSDs. Invariant: a capability
 * whose fields were changed after signing never verifies.
 */
package org.xtreemfs.foundation.capability;
