package org.xtreemfs.common.clients.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractContentSummaryTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's ContentSummary contract suite against a real cluster. */
public class TestXtreemFSContractContentSummary extends AbstractContractContentSummaryTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new XtreemFSContract(conf);
    }
}
