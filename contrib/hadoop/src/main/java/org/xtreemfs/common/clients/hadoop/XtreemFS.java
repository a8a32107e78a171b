package org.xtreemfs.common.clients.hadoop;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.xtreemfs.client.VolumeUrl;

/**
 * The AbstractFileSystem binding, so FileContext works on xtreemfs:// paths
 * ({@code fs.AbstractFileSystem.xtreemfs.impl = org.xtreemfs.common.clients.hadoop.XtreemFS}): every call goes to
 * an {@link XtreemFSFileSystem}.
 */
public class XtreemFS extends DelegateToFileSystem {
    public XtreemFS(URI uri, Configuration conf) throws IOException, URISyntaxException {
        super(uri, new XtreemFSFileSystem(), conf, XtreemFSFileSystem.SCHEME, true);
    }

    @Override
    public int getUriDefaultPort() {
        return VolumeUrl.DEFAULT_DIR_PORT;
    }
}
