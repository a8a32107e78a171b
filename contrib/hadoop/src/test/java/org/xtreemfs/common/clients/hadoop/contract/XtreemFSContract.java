package org.xtreemfs.common.clients.hadoop.contract;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.xtreemfs.common.clients.hadoop.SharedCluster;
import org.xtreemfs.common.clients.hadoop.XtreemFSFileSystem;

/**
 * Binds Hadoop's contract suites to the shared test cluster: the file system is xtreemfs://DIR/ and the suites work
 * under /hadoop/contract-test. What the file system does is declared in contract/xtreemfs.xml.
 */
public class XtreemFSContract extends AbstractFSContract {
    public static final String CONTRACT_XML = "contract/xtreemfs.xml";
    private final SharedCluster cluster;

    public XtreemFSContract(Configuration conf) {
        super(conf);
        addConfResource(CONTRACT_XML);
        cluster = SharedCluster.get();
        getConf().set("fs.AbstractFileSystem.xtreemfs.impl",
                cluster.configuration().get("fs.AbstractFileSystem.xtreemfs.impl"));
    }

    @Override
    public FileSystem getTestFileSystem() throws IOException {
        return FileSystem.get(URI.create(cluster.fileSystemUri()), getConf());
    }

    @Override
    public String getScheme() {
        return XtreemFSFileSystem.SCHEME;
    }

    @Override
    public Path getTestPath() {
        return new Path(cluster.fileSystemUri() + "/" + SharedCluster.VOLUME + "/contract-test");
    }
}
