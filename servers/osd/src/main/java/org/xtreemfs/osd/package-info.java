/**
 * The object storage device: {@link org.xtreemfs.osd.OsdMain} (entry), {@link org.xtreemfs.osd.OsdConfig}
 * (typed settings) and {@link org.xtreemfs.osd.OsdServer} (wiring only). Invariant: the server holds no
 * logic; a request's path is ops → stages → storage.
 */
package org.xtreemfs.osd;
