package org.xtreemfs.common.clients.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractMkdirTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Mkdir contract suite against a real cluster. */
public class TestXtreemFSContractMkdir extends AbstractContractMkdirTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new XtreemFSContract(conf);
    }
}
