package org.xtreemfs.integration;

import java.io.IOException;
import java.util.Optional;
import java.util.Properties;
import org.xtreemfs.client.tools.cluster.ClusterException;
import org.xtreemfs.client.tools.cluster.ServerRunner;
import org.xtreemfs.client.tools.cluster.ServerSpec;
import org.xtreemfs.dir.DirConfig;
import org.xtreemfs.dir.DirServer;
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
        private final int port;
        private final Runnable closer;
        private volatile boolean closed;

        InProcessServer(Object server, int port, Runnable closer) {
            this.server = server;
            this.port = port;
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
        public Optional<Integer> readyPort() {
            return Optional.of(port);
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
                    return new InProcessServer(dir, dir.start().rpc().getPort(), dir::close);
                }
                case MRC -> {
                    MrcServer mrc = new MrcServer(MrcConfig.of(spec.settings()));
                    return new InProcessServer(mrc, mrc.start().getPort(), mrc::close);
                }
                case OSD -> {
                    OsdServer osd = new OsdServer(OsdConfig.of(spec.settings()));
                    return new InProcessServer(osd, osd.start().rpc().getPort(), osd::close);
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
