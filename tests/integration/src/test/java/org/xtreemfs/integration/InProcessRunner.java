package org.xtreemfs.integration;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.Properties;
import org.xtreemfs.client.tools.cluster.ClusterException;
import org.xtreemfs.client.tools.cluster.ServerRunner;
import org.xtreemfs.client.tools.cluster.ServerSpec;
import org.xtreemfs.dir.DirConfig;
import org.xtreemfs.dir.DirServer;
import org.xtreemfs.foundation.launcher.ReadyAnnouncement;
import org.xtreemfs.mrc.MrcConfig;
import org.xtreemfs.mrc.MrcServer;
import org.xtreemfs.osd.OsdConfig;
import org.xtreemfs.osd.OsdServer;

/**
 * Runs the launcher's servers inside the test JVM (fast to start, and tests may look inside them). A
 * server here can only be closed (TERM and KILL both close it); tests that need a real SIGKILL or SIGSTOP
 * run their cluster as processes ({@link TestCluster#startProcesses}).
 */
final class InProcessRunner implements ServerRunner {

    /** A started server; {@link #server()} is the DirServer, MrcServer or OsdServer. */
    static final class InProcessServer implements RunningServer {
        private final Object server;
        private final ReadyAnnouncement ready;
        private final Runnable closer;
        private volatile boolean closed;

        InProcessServer(Object server, ReadyAnnouncement ready, Runnable closer) {
            this.server = server;
            this.ready = ready;
            this.closer = closer;
        }

        Object server() {
            return server;
        }

        @Override
        public long pid() {
            return -1;
        }

        @Override
        public Optional<ReadyAnnouncement> ready() {
            return Optional.of(ready);
        }

        @Override
        public boolean alive() {
            return !closed;
        }

        @Override
        public void signal(String signal) {
            if (!signal.equals("KILL") && !signal.equals("TERM")) {
                throw new ClusterException("an in-process server takes TERM or KILL (a close), not " + signal
                        + "; run the cluster as processes for that");
            }
            stop();
        }

        @Override
        public synchronized void stop() {
            if (!closed) {
                closed = true;
                closer.run();
            }
        }
    }

    /** What the server's process would announce: its bound RPC and status addresses. */
    private static ReadyAnnouncement announcement(ServerSpec spec, InetSocketAddress rpc, InetSocketAddress status) {
        return ReadyAnnouncement.of(spec.kind().shortName(), rpc, status);
    }

    @Override
    public RunningServer start(ServerSpec spec) throws IOException {
        if (!spec.networkNamespace().isEmpty()) {
            throw new ClusterException(spec.name() + ": an in-process server runs in the test JVM's network namespace,"
                    + " not in " + spec.networkNamespace() + "; run the cluster as processes for that");
        }
        try {
            switch (spec.kind()) {
                case DIR -> {
                    Properties properties = new Properties();
                    properties.putAll(spec.settings());
                    DirServer dir = new DirServer(DirConfig.from(properties));
                    DirServer.Addresses addresses = dir.start();
                    return new InProcessServer(dir, announcement(spec, addresses.rpc(), addresses.status()), dir::close);
                }
                case MRC -> {
                    MrcServer mrc = new MrcServer(MrcConfig.of(spec.settings()));
                    return new InProcessServer(mrc, announcement(spec, mrc.start(), mrc.statusAddress()), mrc::close);
                }
                case OSD -> {
                    OsdServer osd = new OsdServer(OsdConfig.of(spec.settings()));
                    OsdServer.Addresses addresses = osd.start();
                    return new InProcessServer(osd, announcement(spec, addresses.rpc(), addresses.status()), osd::close);
                }
                default -> throw new IllegalArgumentException("unknown kind " + spec.kind());
            }
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(spec.name() + " failed to start: " + e.getMessage(), e);
        }
    }
}
