package org.xtreemfs.client.tools.cluster;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.xtreemfs.client.tools.ToolRunner;
import org.xtreemfs.client.tools.cluster.LocalCluster.ServerStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * bin/xtreemfs-cluster: starts, shows, kills, restarts and stops a local cluster ({@link LocalCluster}) whose
 * servers run as processes from the repository's bin/ launchers. Used by make run, the system tests and the
 * benchmarks; the integration tests use {@link LocalCluster} directly.
 */
@Command(name = "xtreemfs-cluster", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"A local XtreemFS-QoS cluster: one DIR, one MRC and typed OSDs as separate processes on "
                + "free loopback ports, with data, logs and state under one folder (--state).",
                "Ready means every server printed its READY line and the MRC and each OSD are registered at the DIR."},
        subcommands = {ClusterMain.Start.class, ClusterMain.Status.class, ClusterMain.Kill.class,
                ClusterMain.Restart.class, ClusterMain.Stop.class, ClusterMain.Certificate.class},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:done", "1:the operation failed (a server did not start, nothing to stop, ...)",
                "2:a bad option or value"})
public final class ClusterMain implements Callable<Integer> {
    /** Set by bin/xtreemfs-cluster: the repository whose bin/xtreemfs-{dir,mrc,osd} run the servers. */
    static final String REPOSITORY_VARIABLE = "XTREEMFS_REPOSITORY";
    /** JAVA_OPTS for the servers (the CLI's own JAVA_OPTS are fast-start flags a server should not get). */
    static final String SERVER_JAVA_OPTIONS_VARIABLE = "XTREEMFS_SERVER_JAVA_OPTS";

    @Option(names = "--state", paramLabel = "FOLDER", defaultValue = "state", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "The cluster's folder: data/, log/, mnt/ and cluster.properties (default: ${DEFAULT-VALUE}).")
    Path state;

    @Spec
    CommandSpec commandSpec;

    public static void main(String[] args) {
        ToolRunner.main(new ClusterMain(), args);
    }

    @Override
    public Integer call() {
        commandSpec.commandLine().getErr().println("xtreemfs-cluster: a command is needed (start, status, kill, "
                + "restart or stop); try 'xtreemfs-cluster --help'");
        return ToolRunner.EXIT_USAGE;
    }

    /** Runs a subcommand: a failed cluster operation is one line on stderr and exit 1, not a stack trace. */
    static int guarded(CommandSpec spec, Callable<Integer> body) throws Exception {
        try {
            return body.call();
        } catch (ClusterException e) {
            spec.commandLine().getErr().println("xtreemfs-cluster " + spec.name() + ": " + e.getMessage());
            spec.commandLine().getErr().flush();
            return ToolRunner.EXIT_FAILED;
        }
    }

    static ServerRunner runner() {
        String repository = System.getenv(REPOSITORY_VARIABLE);
        if (repository == null || repository.isEmpty()) {
            throw new ClusterException(REPOSITORY_VARIABLE + " is not set; run bin/xtreemfs-cluster, which sets it");
        }
        String javaOptions = System.getenv(SERVER_JAVA_OPTIONS_VARIABLE);
        return ProcessRunner.scripts(Path.of(repository), javaOptions == null ? "" : javaOptions);
    }

    LocalCluster open() {
        if (!LocalCluster.exists(state)) {
            throw new ClusterException("no cluster in " + state.toAbsolutePath() + " (start one with "
                    + "'xtreemfs-cluster start --state " + state + "')");
        }
        return LocalCluster.open(state, runner());
    }

    static Map<String, String> parseSettings(List<String> settings, String option) {
        Map<String, String> parsed = new LinkedHashMap<>();
        for (String setting : settings) {
            int equals = setting.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException(option + " takes KEY=VALUE, not '" + setting + "'");
            }
            parsed.put(setting.substring(0, equals).trim(), setting.substring(equals + 1).trim());
        }
        return parsed;
    }

    static void printStatus(LocalCluster cluster, PrintWriter out) {
        for (ServerStatus server : cluster.status()) {
            out.printf("%-11s %-7s %-11s %-21s %-24s %-18s %-36s %s%n", server.name(),
                    server.running() ? "running" : "stopped", server.running() ? "pid " + server.pid() : "",
                    server.scheme().url(server.address() + ":" + server.port()),
                    server.statusPort() > 0 ? "http://" + server.address() + ":" + server.statusPort() + "/" : "",
                    server.uuid().isEmpty() ? "-" : server.uuid(), server.summary(), server.log());
        }
        for (Path mount : cluster.mounts()) {
            out.println("mounted  " + mount);
        }
    }

    /**
     * Bash assignments for scripts: eval "$(xtreemfs-cluster status --shell)". The status ports
     * ({@code dir_status_port}, {@code mrc_status_port}, {@code osd_status_ports}) are those the servers announced,
     * kept by a cluster started with --status-ports; 0 without.
     */
    static void printShell(LocalCluster cluster, PrintWriter out) {
        List<String> osdNames = new ArrayList<>();
        List<String> osdPorts = new ArrayList<>();
        List<String> osdUuids = new ArrayList<>();
        List<String> osdPids = new ArrayList<>();
        List<String> osdAddresses = new ArrayList<>();
        List<String> osdStatusPorts = new ArrayList<>();
        for (ServerStatus server : cluster.status()) {
            switch (server.kind()) {
                case DIR -> out.printf("dir_port=%d%ndir_pid=%d%ndir_address=%s%ndir_scheme=%s%ndir_status_port=%d%n",
                        server.port(), server.pid(), server.address(), server.scheme().schemeName(),
                        server.statusPort());
                case MRC -> out.printf("mrc_port=%d%nmrc_pid=%d%nmrc_uuid=%s%nmrc_address=%s%nmrc_status_port=%d%n",
                        server.port(), server.pid(), server.uuid(), server.address(), server.statusPort());
                case OSD -> {
                    osdNames.add(server.name());
                    osdPorts.add(Integer.toString(server.port()));
                    osdUuids.add(server.uuid());
                    osdPids.add(Long.toString(server.pid()));
                    osdAddresses.add(server.address());
                    osdStatusPorts.add(Integer.toString(server.statusPort()));
                }
            }
        }
        out.printf("osd_names=(%s)%nosd_ports=(%s)%nosd_uuids=(%s)%nosd_pids=(%s)%nosd_addresses=(%s)%n"
                + "osd_status_ports=(%s)%n", String.join(" ", osdNames), String.join(" ", osdPorts),
                String.join(" ", osdUuids), String.join(" ", osdPids), String.join(" ", osdAddresses),
                String.join(" ", osdStatusPorts));
        // With TLS: the files clients need (the tools' --tls-ca/--tls-cert/--tls-key, mount.xtreemfs's the same).
        cluster.tlsFiles().ifPresentOrElse(files -> out.printf("tls_ca=%s%ntls_cert=%s%ntls_key=%s%n",
                files.authority(), files.administrator().certificate(), files.administrator().privateKey()),
                () -> out.printf("tls_ca=%ntls_cert=%ntls_key=%n"));
    }

    @Command(name = "start", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Starts a cluster and returns once it is ready: a DIR, an MRC and the OSDs given by "
                    + "--osd (each once) or --osds. A folder holding a stopped cluster is started again as it was "
                    + "(same data and ports) unless --fresh is given.",
                    "Options can also come from a file: xtreemfs-cluster start @FILE (one option per line)."})
    static final class Start implements Callable<Integer> {
        @ParentCommand
        ClusterMain parent;

        @Option(names = "--osds", paramLabel = "N", description = "N default OSDs named osd0..osdN-1 (besides any --osd).")
        int osdCount;

        @Option(names = "--osd", paramLabel = "SPEC", description = {"One OSD: comma-separated key=value of name, "
                + "usage (sequential, random, cold, best_effort), device (hdd, ssd), emulation (hdd7200, ssd) and "
                + "any OSD setting, e.g. name=seq,usage=sequential,device=hdd,emulation=hdd7200,osd.locks.leaseMs=6000"})
        List<String> osds = new ArrayList<>();

        @Option(names = "--osd-setting", paramLabel = "KEY=VALUE", description = "A setting of every OSD.")
        List<String> osdSettings = new ArrayList<>();

        @Option(names = "--mrc-setting", paramLabel = "KEY=VALUE", description = "A setting of the MRC.")
        List<String> mrcSettings = new ArrayList<>();

        @Option(names = "--dir-setting", paramLabel = "KEY=VALUE", description = "A setting of the DIR.")
        List<String> dirSettings = new ArrayList<>();

        @Option(names = "--status-ports", description = {"Keep the status port each server binds (any free one) and"
                + " announces at its first start: status shows the status pages' URLs, status --shell their ports, and"
                + " a restart binds the same port again. Without it every start binds a new one nobody is told of."})
        boolean statusPorts;

        @Option(names = "--fresh", description = "Wipe a stopped cluster in the folder (its data, logs, state) first.")
        boolean fresh;

        @Option(names = "--tls", description = "Every RPC port speaks TLS only, with certificates from a test CA the "
                + "launcher makes in STATE/tls (openssl); clients need --tls-ca STATE/tls/ca.pem (and the "
                + "administrator's STATE/tls/admin.pem/.key, CN=root).")
        boolean tls;

        @Option(names = "--tls-client-certificates", description = "As --tls, and every server requires a client "
                + "certificate signed by the test CA (make users' with 'xtreemfs-cluster certificate').")
        boolean tlsClientCertificates;

        @Option(names = "--plain-server", paramLabel = "NAME", description = {"With --tls: server NAME (dir, mrc or an"
                + " OSD's name; repeatable) keeps a plain RPC port, a mixed cluster. Every server registers the scheme"
                + " it speaks (pbrpcs or pbrpc) and clients speak each server's; plain servers trust the test CA for"
                + " their calls to TLS servers. Not with --tls-client-certificates (plain servers have no"
                + " certificate)."})
        List<String> plainServers = new ArrayList<>();

        @Option(names = "--netns", paramLabel = "NAME=NAMESPACE@ADDRESS", description = {"Run server NAME (dir, mrc or "
                + "an OSD's name) on a host of its own: in the network namespace NAMESPACE (/run/netns/NAMESPACE, made "
                + "with ip netns add; entered with nsenter --net, so files and mounts stay this machine's), bound to "
                + "every interface (0.0.0.0) and registering the address its host advertises; the launcher and the "
                + "other servers reach it at ADDRESS (IPv4), which the launcher checks is what it registered. Give "
                + "every server one or none; run the launcher itself where it reaches every ADDRESS (e.g. nsenter "
                + "--net=/run/netns/CLIENT bin/xtreemfs-cluster ...). See tests/system/multihost_e2e.sh."})
        List<String> netns = new ArrayList<>();

        @Spec
        CommandSpec commandSpec;

        @Override
        public Integer call() throws Exception {
            return guarded(commandSpec, this::work);
        }

        private Integer work() {
            PrintWriter out = commandSpec.commandLine().getOut();
            ServerRunner runner = runner();
            if (osdCount < 0) {
                throw new IllegalArgumentException("--osds takes a count of 0 or more, not " + osdCount);
            }
            Map<String, String> everyOsd = parseSettings(osdSettings, "--osd-setting");
            List<OsdDescription> described = new ArrayList<>();
            for (int index = 0; index < osdCount; index++) {
                described.add(new OsdDescription("osd" + index, everyOsd));
            }
            for (String spec : osds) {
                OsdDescription osd = OsdDescription.parse(spec, "osd" + described.size());
                Map<String, String> settings = new LinkedHashMap<>(everyOsd);
                settings.putAll(osd.settings());
                described.add(new OsdDescription(osd.name(), settings));
            }
            Map<String, NetworkHost> hosts = new LinkedHashMap<>();
            parseSettings(netns, "--netns").forEach((name, host) -> hosts.put(name, NetworkHost.parse(host)));
            ClusterDescription description = new ClusterDescription(described,
                    parseSettings(dirSettings, "--dir-setting"), parseSettings(mrcSettings, "--mrc-setting"), statusPorts,
                    tlsClientCertificates ? ClusterDescription.Tls.CLIENT_CERTIFICATES
                            : tls ? ClusterDescription.Tls.ON : ClusterDescription.Tls.OFF, hosts,
                    new java.util.HashSet<>(plainServers));
            LocalCluster cluster;
            if (fresh) {
                LocalCluster.wipe(parent.state, runner);
            }
            if (LocalCluster.exists(parent.state)) {
                if (!described.isEmpty() || !dirSettings.isEmpty() || !mrcSettings.isEmpty() || statusPorts || tls
                        || tlsClientCertificates || !netns.isEmpty() || !plainServers.isEmpty()) {
                    throw new IllegalArgumentException(parent.state + " holds a cluster already: start it again "
                            + "without describing servers, or describe a new one with --fresh");
                }
                cluster = LocalCluster.open(parent.state, runner);
                if (cluster.status().stream().allMatch(ServerStatus::running)) {
                    throw new ClusterException("a cluster already runs in " + cluster.state()
                            + " (status, stop, or start --fresh after stop)");
                }
                out.println("Starting the cluster in " + cluster.state() + " again, on its data and ports");
                cluster.startStopped();
            } else {
                if (described.isEmpty()) {
                    throw new IllegalArgumentException("no OSDs: give --osds N or --osd SPEC");
                }
                out.println("Starting a cluster in " + parent.state.toAbsolutePath().normalize());
                out.flush();
                cluster = LocalCluster.start(description, parent.state, runner);
            }
            printStatus(cluster, out);
            return ToolRunner.EXIT_OK;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Shows each server (running or not, pid, address, status page, type, log) and the mounts.")
    static final class Status implements Callable<Integer> {
        @ParentCommand
        ClusterMain parent;

        @Option(names = "--shell", description = "Print bash assignments (dir_port, mrc_port, osd_ports=(...), pids,"
                + " dir_status_port, mrc_status_port, osd_status_ports=(...): 0 unless started with --status-ports).")
        boolean shell;

        @Spec
        CommandSpec commandSpec;

        @Override
        public Integer call() throws Exception {
            return guarded(commandSpec, this::work);
        }

        private Integer work() {
            LocalCluster cluster = parent.open();
            if (shell) {
                printShell(cluster, commandSpec.commandLine().getOut());
            } else {
                printStatus(cluster, commandSpec.commandLine().getOut());
            }
            return ToolRunner.EXIT_OK;
        }
    }

    @Command(name = "kill", mixinStandardHelpOptions = true,
            description = "Sends a signal to one server; KILL (the default) and TERM return once it has ended.")
    static final class Kill implements Callable<Integer> {
        @ParentCommand
        ClusterMain parent;

        @Parameters(paramLabel = "NAME", description = "dir, mrc or an OSD's name.")
        String name;

        @Spec
        CommandSpec commandSpec;

        @Option(names = "--signal", paramLabel = "SIGNAL", defaultValue = "KILL",
                description = "KILL, TERM, STOP, CONT, INT or HUP (default: ${DEFAULT-VALUE}).")
        String signal;

        @Override
        public Integer call() throws Exception {
            return guarded(commandSpec, this::work);
        }

        private Integer work() {
            if (!List.of("KILL", "TERM", "STOP", "CONT", "INT", "HUP").contains(signal)) {
                throw new IllegalArgumentException("--signal takes KILL, TERM, STOP, CONT, INT or HUP, not '" + signal + "'");
            }
            parent.open().kill(name, signal);
            return ToolRunner.EXIT_OK;
        }
    }

    @Command(name = "restart", mixinStandardHelpOptions = true,
            description = "Stops one server if it runs and starts it again on the same port and data; returns once "
                    + "it is ready (and registered at the DIR).")
    static final class Restart implements Callable<Integer> {
        @ParentCommand
        ClusterMain parent;

        @Parameters(paramLabel = "NAME", description = "dir, mrc or an OSD's name.")
        String name;

        @Spec
        CommandSpec commandSpec;

        @Override
        public Integer call() throws Exception {
            return guarded(commandSpec, this::work);
        }

        private Integer work() {
            parent.open().restart(name);
            return ToolRunner.EXIT_OK;
        }
    }

    @Command(name = "certificate", mixinStandardHelpOptions = true,
            description = {"Issues a client certificate of a TLS cluster's test CA for a user (subject CN=USER, "
                    + "UID=UID, OU=GID: whom an MRC with mrc.identity.fromCertificate takes the caller to be) into "
                    + "STATE/tls/NAME.pem and NAME.key, and prints their paths."})
    static final class Certificate implements Callable<Integer> {
        @ParentCommand
        ClusterMain parent;

        @Parameters(paramLabel = "NAME", description = "File name of the certificate (letters, digits, . _ -).")
        String name;

        @Option(names = "--user", paramLabel = "USER", required = true, description = "The user name (CN).")
        String user;

        @Option(names = "--uid", paramLabel = "UID", required = true, description = "The numeric user id.")
        int uid;

        @Option(names = "--gid", paramLabel = "GID", required = true, description = "The numeric group id.")
        int gid;

        @Spec
        CommandSpec commandSpec;

        @Override
        public Integer call() throws Exception {
            return guarded(commandSpec, this::work);
        }

        private Integer work() {
            if (uid < 0 || gid < 0) {
                throw new IllegalArgumentException("--uid and --gid take ids of 0 or more, not " + uid + "/" + gid);
            }
            TestAuthority.Issued issued = parent.open().issueUserCertificate(name, user, uid, gid);
            commandSpec.commandLine().getOut().println(issued.certificate() + " " + issued.privateKey());
            return ToolRunner.EXIT_OK;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Unmounts the FUSE mounts below STATE/mnt and stops every server of the cluster. "
                    + "The data stays: start starts the cluster again, start --fresh a new one.")
    static final class Stop implements Callable<Integer> {
        @ParentCommand
        ClusterMain parent;

        @Spec
        CommandSpec commandSpec;

        @Override
        public Integer call() throws Exception {
            return guarded(commandSpec, this::work);
        }

        private Integer work() {
            LocalCluster cluster = parent.open();
            cluster.stop();
            commandSpec.commandLine().getOut().println("stopped the cluster in " + cluster.state());
            return ToolRunner.EXIT_OK;
        }
    }
}
