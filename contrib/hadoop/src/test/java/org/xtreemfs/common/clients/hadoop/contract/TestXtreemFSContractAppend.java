package org.xtreemfs.common.clients.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractAppendTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Append contract suite against a real cluster. */
public class TestXtreemFSContractAppend extends AbstractContractAppendTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new XtreemFSContract(conf);
    }
}
