package org.xtreemfs.integration;

import java.util.Map;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.Volume;

/** A started {@link TestCluster} with one client and one open volume: the fixture most test classes share. */
record ClusterWithVolume(TestCluster cluster, Client client, Volume volume) implements AutoCloseable {

    static ClusterWithVolume start(int osdCount, Map<String, String> mrcOverrides, String volumeName,
            int stripeWidth) throws Exception {
        TestCluster cluster = TestCluster.start(osdCount, Map.of(), mrcOverrides);
        Client client = cluster.client();
        try {
            Volumes.create(client, volumeName, stripeWidth);
            return new ClusterWithVolume(cluster, client, client.openVolume(volumeName));
        } catch (Exception | Error e) {
            client.close();
            cluster.close();
            throw e;
        }
    }

    @Override
    public void close() {
        client.close();
        cluster.close();
    }
}
