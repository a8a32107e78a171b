package org.xtreemfs.common.clients.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's VectoredRead contract suite against a real cluster. */
public class TestXtreemFSContractVectoredRead extends AbstractContractVectoredReadTest {
    /** The suite runs once per buffer type ("direct", "array"): JUnit's Parameterized runner passes it here. */
    public TestXtreemFSContractVectoredRead(String bufferType) {
        super(bufferType);
    }

    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new XtreemFSContract(conf);
    }
}
