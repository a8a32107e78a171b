/**
 * One handler per DIR procedure. Handlers run on network threads: they only parse the request and queue
 * the registry work on the registry stage, which answers the call; none blocks.
 */
package org.xtreemfs.dir.ops;
