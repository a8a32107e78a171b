package org.xtreemfs.client.tools.cluster;

import java.io.IOException;
import java.util.Optional;
import org.xtreemfs.foundation.launcher.ReadyAnnouncement;

/**
 * How a cluster's servers run: as processes ({@link ProcessRunner}, the launcher's CLI, system tests and
 * benchmarks) or, in the integration tests, inside the test JVM. The launcher's rules (settings, ports,
 * ready-wait, registration at the DIR, kill and restart) are the same for both.
 */
public interface ServerRunner {
    /** Starts the server and returns at once; the launcher waits for {@link RunningServer#ready}. */
    RunningServer start(ServerSpec spec) throws IOException;

    /** A server this runner started earlier, possibly from another process (by its pid), if it still runs. */
    default Optional<RunningServer> find(ServerSpec spec, long pid) {
        return Optional.empty();
    }

    /** One started server. */
    interface RunningServer {
        /** The operating system's process id; -1 when the server runs inside this JVM. */
        long pid();

        /**
         * The server's READY announcement (its bound RPC and status addresses), empty while it starts.
         *
         * @throws ClusterException when the server ended before it was ready (with the end of its log), or
         *     announced something that is not a whole announcement
         */
        Optional<ReadyAnnouncement> ready();

        boolean alive();

        /** Sends a signal (KILL, TERM, STOP, CONT, ...); KILL and TERM return once the server has ended. */
        void signal(String signal);

        /** Stops the server gracefully (TERM, then KILL after a while) and returns once it has ended. */
        void stop();
    }
}
