package org.xtreemfs.common.clients.hadoop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.ClientOptions;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.client.tools.cluster.ClusterDescription;
import org.xtreemfs.client.tools.cluster.LocalCluster;
import org.xtreemfs.client.tools.cluster.OsdDescription;
import org.xtreemfs.client.tools.cluster.ProcessRunner;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.StripingPolicyType;
import org.xtreemfs.interfaces.mrc.Volume;

/**
 * The one cluster every test of this module runs against: a DIR, an MRC and two OSDs started by the project's
 * launcher ({@link LocalCluster}, the code behind bin/xtreemfs-cluster) as processes from the test classpath, on
 * loopback ports chosen at run time, under a temporary folder. Started on first use, stopped (and its folder
 * removed) when the test JVM exits, so the contract suites share one start-up. The volume {@value #VOLUME} is
 * striped over both OSDs with small objects, so even the suites' small files span several objects and OSDs.
 */
public final class SharedCluster {
    public static final String VOLUME = "hadoop";
    public static final int OBJECT_SIZE_BYTES = 64 * 1024;
    public static final int STRIPE_WIDTH = 2;
    private static final List<String> SERVER_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");

    private static SharedCluster instance;

    private final Path root;
    private final LocalCluster cluster;

    private SharedCluster(Path root, LocalCluster cluster) {
        this.root = root;
        this.cluster = cluster;
    }

    /** The running cluster, started (with its volume) on the first call. */
    public static synchronized SharedCluster get() {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static SharedCluster start() {
        Path root;
        try {
            root = Files.createTempDirectory("xtreemfs-hadoop-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ClusterDescription description = new ClusterDescription(
                List.of(new OsdDescription("osd0", Map.of()), new OsdDescription("osd1", Map.of())), Map.of(),
                Map.of(), false);
        LocalCluster cluster = LocalCluster.start(description, root.resolve("cluster"),
                ProcessRunner.classpath(System.getProperty("java.class.path"), SERVER_JVM_OPTIONS));
        SharedCluster shared = new SharedCluster(root, cluster);
        Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "xtreemfs-hadoop-cluster-stop"));
        try (Client client = Client.connect(cluster.dirSocketAddress(), ClientOptions.defaults())) {
            client.createVolume(Volume.newBuilder().setName(VOLUME).setMode(0777)
                    .setDefaultStripingPolicy(StripingPolicy.newBuilder().setType(StripingPolicyType.RAID0)
                            .setObjectSizeBytes(OBJECT_SIZE_BYTES).setWidth(STRIPE_WIDTH))
                    .build());
        } catch (XtreemFSException e) {
            shared.stop();
            throw new IllegalStateException("cannot create the test volume: " + e.getMessage(), e);
        }
        return shared;
    }

    /** "xtreemfs://127.0.0.1:PORT": the file system's URI, without a volume. */
    public String fileSystemUri() {
        return XtreemFSFileSystem.SCHEME + "://" + cluster.dirAddress();
    }

    public LocalCluster launcher() {
        return cluster;
    }

    /** A configuration with the adapter's AbstractFileSystem binding (the FileSystem is found by its service file). */
    public Configuration configuration() {
        Configuration conf = new Configuration();
        conf.set("fs.AbstractFileSystem.xtreemfs.impl", XtreemFS.class.getName());
        return conf;
    }

    private void stop() {
        try {
            cluster.stop();
        } finally {
            try (Stream<Path> paths = Files.walk(root)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // A left-over temporary folder is harmless.
            }
        }
    }
}
