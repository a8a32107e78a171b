/**
 * The MRC service: {@link org.xtreemfs.mrc.MrcMain} (command line), {@link org.xtreemfs.mrc.MrcConfig}
 * (typed settings) and {@link org.xtreemfs.mrc.MrcServer} (wiring only). Invariant: this package holds no
 * metadata logic; it connects ops, stages, metadata, placement, capability and registry.
 */
package org.xtreemfs.mrc;
