/**
 * One RPC handler per OSD procedure. Invariant: handlers run on network threads and never block: they
 * parse, check the request's shape (INVALID_ARGS) and hand it to the preprocessing stage.
 */
package org.xtreemfs.osd.ops;
