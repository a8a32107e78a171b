package org.xtreemfs.common.clients.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Seek contract suite against a real cluster. */
public class TestXtreemFSContractSeek extends AbstractContractSeekTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new XtreemFSContract(conf);
    }
}
