package org.xtreemfs.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.interfaces.rpc.ErrorType;

/** An OSD whose QoS queue holds one request rejects bursts with OVERLOADED; the client's bounded retry absorbs it. */
class OverloadRetryTest {
    private static final int BURST_BYTES = 4 << 20;
    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start(1, Map.of("osd.qos.queueCapacity", "1", "osd.qos.inFlightMax", "1"), Map.of());
        try (Client client = cluster.client()) {
            Volumes.create(client, "tiny", 1);
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // Without retries a burst of 32 parallel object writes meets OVERLOADED (EAGAIN) at least once; with
    // retries the same bursts all succeed and read back intact.
    @Test
    void overloadedWritesAreRetried() throws Exception {
        byte[] data = new byte[BURST_BYTES];
        new Random(11).nextBytes(data);
        XtreemFSException overloaded = null;
        try (Client impatient = cluster.client(ClientOptions.builder().retryAttemptsMax(1)
                .objectRequestsInFlightMax(32))) {
            Volume volume = impatient.openVolume("tiny");
            try (FileHandle file = volume.open("/burst", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644)) {
                for (int round = 0; round < 20 && overloaded == null; round++) {
                    try {
                        file.write(0, data);
                    } catch (XtreemFSException e) {
                        overloaded = e;
                    }
                }
            }
        }
        assertThat(overloaded).as("an OVERLOADED rejection").isNotNull();
        assertThat(overloaded.errorType()).isEqualTo(ErrorType.OVERLOADED);
        assertThat(overloaded.getMessage()).contains("'tiny/burst'");

        try (Client patient = cluster.client(ClientOptions.builder().retryAttemptsMax(60)
                .objectRequestsInFlightMax(32))) {
            Volume volume = patient.openVolume("tiny");
            try (FileHandle file = volume.open("/burst", OpenFlags.O_WRONLY, 0)) {
                for (int round = 0; round < 5; round++) {
                    file.write(0, data);
                }
            }
            try (FileHandle file = volume.open("/burst", OpenFlags.O_RDONLY, 0)) {
                Bytes.assertSameBytes(file.read(0, BURST_BYTES), data);
            }
        }
    }
}
