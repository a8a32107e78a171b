/**
 * The limits of a striping policy (object size, stripe width), in one place for the tools, the MRC that
 * accepts a volume and the OSD that serves its objects. Invariant: an object size accepted here fits one
 * RPC record's data segment, so every client and server can move a whole object in one request.
 */
package org.xtreemfs.foundation.striping;
