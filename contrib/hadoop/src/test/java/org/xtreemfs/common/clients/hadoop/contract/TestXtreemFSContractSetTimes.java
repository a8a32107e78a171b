package org.xtreemfs.common.clients.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSetTimesTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's SetTimes contract suite against a real cluster. */
public class TestXtreemFSContractSetTimes extends AbstractContractSetTimesTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new XtreemFSContract(conf);
    }
}
