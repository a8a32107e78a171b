package org.xtreemfs.client.tools.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.xtreemfs.client.tools.cluster.ServerRunner.RunningServer;
import org.xtreemfs.foundation.launcher.ReadyAnnouncement;
import org.xtreemfs.foundation.rpc.FrameLimits;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.foundation.rpc.RpcTlsSettings;
import org.xtreemfs.foundation.rpc.RpcTls;
import org.xtreemfs.foundation.rpc.ServiceAddress;
import org.xtreemfs.foundation.stubs.DirServiceClient;
import org.xtreemfs.foundation.files.PrivateFiles;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.ServiceStatus;

/**
 * A local cluster of one DIR, one MRC and typed OSDs, with everything under one state folder
 * ({@link ClusterLayout}). The one way this project starts a cluster: the CLI {@code bin/xtreemfs-cluster}
 * (make run, system tests, benchmarks) and the integration tests use this class.
 *
 * <p>Ready means: the server printed its READY line (for the DIR), and, for the MRC and every OSD,
 * also that the DIR lists it as available with a heartbeat from after this (re)start at the port it
 * announced. No fixed sleeps: once {@link #start} or {@link #restart} returns, mkfs places on every OSD.
 *
 * <p>Servers listen on the launcher's loopback, or each on a host of its own ({@link NetworkHost}: a network
 * namespace and its address, where the launcher reaches it and checks it registered).
 *
 * <p>The state file is rewritten after every change, so another process (the next CLI call) can
 * {@link #open} the cluster to stop, kill, restart or show it. Not thread-safe: one caller at a time.
 */
public final class LocalCluster implements AutoCloseable {
    static final Duration READY_TIMEOUT = Duration.ofSeconds(90);  // several JVMs starting on 2 busy cores
    static final Duration REGISTRATION_TIMEOUT = Duration.ofSeconds(60);
    private static final long POLL_MS = 50;
    private static final long DIR_TIMEOUT_MS = 5_000;

    private final Path state;
    private final ServerRunner runner;
    private final String clusterId;
    private final ClusterDescription.Tls tls;
    /**
     * Whether each server's status port, announced at its first start, is kept in its spec (status shows it, a
     * restart binds it again); otherwise every start binds a new one nobody is told of.
     */
    private final boolean statusPorts;
    /** dir, mrc, then the OSDs in description order. */
    private final Map<String, Member> members = new LinkedHashMap<>();

    private static final class Member {
        ServerSpec spec;
        final String uuid;
        final String summary;
        /** The server's own network namespace and address; null: the launcher's loopback. */
        final NetworkHost host;
        RunningServer running;
        long pid = -1;

        Member(ServerSpec spec, String uuid, String summary, NetworkHost host) {
            this.spec = spec;
            this.uuid = uuid;
            this.summary = summary;
            this.host = host;
        }

        int port() {
            return Integer.parseInt(spec.settings().get(spec.kind().portKey()));
        }

        /** Where the launcher and the other servers reach it. */
        String address() {
            return host == null ? ClusterLayout.LOOPBACK : host.address();
        }

        /** The scheme its RPC port speaks: pbrpcs when its settings give it a certificate. */
        RpcScheme scheme() {
            return new RpcTlsSettings(spec.kind().shortName()).scheme(spec.settings());
        }
    }

    /**
     * One line of {@link #status}: {@code port} is 0 before the server was ever ready; {@code address} is where it
     * is reached, {@code networkNamespace} empty for the launcher's own.
     */
    public record ServerStatus(String name, ServerKind kind, boolean running, long pid, String address, int port,
            int statusPort, String uuid, String summary, Path log, String networkNamespace, RpcScheme scheme) {
    }

    private LocalCluster(Path state, ServerRunner runner, String clusterId, ClusterDescription.Tls tls,
            boolean statusPorts) {
        this.state = state;
        this.runner = runner;
        this.clusterId = clusterId;
        this.tls = tls;
        this.statusPorts = statusPorts;
    }

    /** Whether {@code state} holds a cluster (running or not). */
    public static boolean exists(Path state) {
        return Files.exists(state.resolve(ClusterLayout.STATE_FILE));
    }

    /**
     * Starts a new cluster in {@code state} (which must not hold one: {@link #open} that, or wipe it) and returns
     * once every server is ready and registered. On failure everything started so far is stopped again.
     */
    public static LocalCluster start(ClusterDescription description, Path state, ServerRunner runner) {
        state = state.toAbsolutePath().normalize();
        if (exists(state)) {
            throw new ClusterException(state + " already holds a cluster; stop it and start it again, or wipe it");
        }
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        String hex = HexFormat.of().formatHex(random);
        LocalCluster cluster = new LocalCluster(state, runner, hex.substring(0, 6), description.tls(),
                description.statusPorts());
        try {
            PrivateFiles.folder(state); // logs, data, the secret and the state file are the user's alone
            if (description.tls().enabled()) {
                TestAuthority authority = TestAuthority.create(ClusterLayout.tlsFolder(state));
                authority.issue(ClusterLayout.ADMIN_CERTIFICATE, ClusterLayout.ADMIN_SUBJECT, List.of());
            }
            String secretFile = writeSecretFile(state, HexFormat.of().formatHex(secretBytes())).toString();
            Map<String, NetworkHost> hosts = description.hosts();
            cluster.add("dir", ServerKind.DIR, "", secretFile, description.dirSettings(), "", hosts.get("dir"),
                    description.tlsPort("dir"));
            cluster.startAndAwait(List.of("dir"));
            String dirAddress = cluster.dirUrl();
            cluster.add("mrc", ServerKind.MRC, dirAddress, secretFile, description.mrcSettings(), "", hosts.get("mrc"),
                    description.tlsPort("mrc"));
            List<String> names = new ArrayList<>(List.of("mrc"));
            String capacityEach = Long.toString(sharedCapacityBytesEach(state, description.osds().size()));
            for (OsdDescription osd : description.osds()) {
                Map<String, String> settings = new HashMap<>(osd.settings());
                settings.putIfAbsent(OsdDescription.CAPACITY_KEY, capacityEach);
                cluster.add(osd.name(), ServerKind.OSD, dirAddress, secretFile, settings, osd.summary(),
                        hosts.get(osd.name()), description.tlsPort(osd.name()));
                names.add(osd.name());
            }
            cluster.startAndAwait(names);
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.stop();
            if (e instanceof ClusterException clusterException) {
                throw clusterException;
            }
            throw new ClusterException("cannot start the cluster in " + state + ": " + e.getMessage(), e);
        }
    }

    /**
     * The capacity each OSD of a local cluster offers: all of them store on the state folder's one file system,
     * so each offers an equal part of the space usable there now (at least 1 byte), not the whole disk that
     * each would otherwise report (an OSD description may set osd.object.capacityBytes itself).
     */
    static long sharedCapacityBytesEach(Path state, int osdCount) throws IOException {
        long usableBytes = Files.getFileStore(state).getUsableSpace();
        return Math.max(1, usableBytes / Math.max(1, osdCount));
    }

    private static byte[] secretBytes() {
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        return random;
    }

    /**
     * The cluster's capability secret, in a file only this user can read, created with that mode (never
     * widened afterwards) so no other local user can read it at any moment; servers get its path, never the
     * secret on their command line (see foundation CapabilitySecret).
     */
    private static Path writeSecretFile(Path state, String secret) throws IOException {
        Path file = state.resolve(ClusterLayout.SECRET_FILE);
        Files.deleteIfExists(file);
        PrivateFiles.writeNewFile(file, secret + "\n");
        return file;
    }

    private void add(String name, ServerKind kind, String dirAddress, String secretFile, Map<String, String> overrides,
            String summary, NetworkHost host, boolean tlsPort) throws IOException {
        String uuid = kind == ServerKind.DIR ? "" : name + "-" + clusterId;
        Map<String, String> settings = ClusterLayout.defaults(kind, state, name, uuid, dirAddress, secretFile,
                host != null);
        if (tls.enabled() && !tlsPort) {
            // A plain server of a mixed cluster: its port stays plain; it trusts the CA for its calls to TLS servers.
            settings.put(kind.shortName() + ".tls.authorityFile",
                    TestAuthority.open(ClusterLayout.tlsFolder(state)).authorityFile().toString());
        } else if (tls.enabled()) {
            // Each server its own certificate, naming the loopback address and, on a host of its own, its address.
            TestAuthority authority = TestAuthority.open(ClusterLayout.tlsFolder(state));
            List<String> names = new ArrayList<>(List.of("IP:" + ClusterLayout.LOOPBACK, "DNS:localhost"));
            if (host != null) {
                names.add("IP:" + host.address());
            }
            TestAuthority.Issued issued = authority.issue(name, "/CN=xtreemfs-" + name, names);
            String prefix = kind.shortName() + ".tls.";
            settings.put(prefix + "certificateFile", issued.certificate().toString());
            settings.put(prefix + "privateKeyFile", issued.privateKey().toString());
            settings.put(prefix + "authorityFile", authority.authorityFile().toString());
            settings.put(prefix + "requireClientCertificate",
                    Boolean.toString(tls == ClusterDescription.Tls.CLIENT_CERTIFICATES));
        }
        settings.putAll(overrides);
        String effectiveUuid = settings.getOrDefault(kind.shortName() + ".uuid", uuid);
        members.put(name, new Member(new ServerSpec(name, kind, settings, ClusterLayout.log(state, name),
                host == null ? "" : host.networkNamespace()), effectiveUuid, summary, host));
    }

    /** Opens the cluster a state folder holds (started by this or another process) to stop, kill or show it. */
    public static LocalCluster open(Path state, ServerRunner runner) {
        state = state.toAbsolutePath().normalize();
        Path file = state.resolve(ClusterLayout.STATE_FILE);
        Properties properties = new Properties();
        try (InputStream input = Files.newInputStream(file)) {
            properties.load(input);
        } catch (IOException e) {
            throw new ClusterException("no cluster in " + state + " (cannot read " + file + ": " + e.getMessage() + ")");
        }
        LocalCluster cluster = new LocalCluster(state, runner, properties.getProperty("cluster.id", ""),
                ClusterDescription.Tls.valueOf(properties.getProperty("cluster.tls", ClusterDescription.Tls.OFF.name())),
                Boolean.parseBoolean(properties.getProperty("cluster.statusPorts", "false")));
        for (String name : properties.getProperty("servers", "").split(",")) {
            if (name.isEmpty()) {
                continue;
            }
            String prefix = "server." + name + ".";
            Map<String, String> settings = new TreeMap<>();
            properties.stringPropertyNames().stream().filter(key -> key.startsWith(prefix + "setting."))
                    .forEach(key -> settings.put(key.substring((prefix + "setting.").length()), properties.getProperty(key)));
            ServerKind kind = ServerKind.parse(properties.getProperty(prefix + "kind", ""));
            String hostText = properties.getProperty(prefix + "host", "");
            NetworkHost host = hostText.isEmpty() ? null : NetworkHost.parse(hostText);
            Member member = new Member(new ServerSpec(name, kind, settings, ClusterLayout.log(state, name),
                    host == null ? "" : host.networkNamespace()), properties.getProperty(prefix + "uuid", ""),
                    properties.getProperty(prefix + "summary", ""), host);
            member.pid = Long.parseLong(properties.getProperty(prefix + "pid", "-1"));
            member.running = member.pid > 0 ? runner.find(member.spec, member.pid).orElse(null) : null;
            cluster.members.put(name, member);
        }
        return cluster;
    }

    private void save() {
        Properties properties = new Properties() {
            @Override
            public synchronized java.util.Set<Map.Entry<Object, Object>> entrySet() {
                // Sorted, so the file reads top to bottom server by server.
                java.util.Set<Map.Entry<Object, Object>> sorted = new java.util.TreeSet<>(
                        (a, b) -> a.getKey().toString().compareTo(b.getKey().toString()));
                sorted.addAll(super.entrySet());
                return sorted;
            }
        };
        properties.setProperty("cluster.id", clusterId);
        properties.setProperty("cluster.tls", tls.name());
        properties.setProperty("cluster.statusPorts", Boolean.toString(statusPorts));
        properties.setProperty("servers", String.join(",", members.keySet()));
        members.forEach((name, member) -> {
            String prefix = "server." + name + ".";
            properties.setProperty(prefix + "kind", member.spec.kind().shortName());
            properties.setProperty(prefix + "uuid", member.uuid);
            properties.setProperty(prefix + "summary", member.summary);
            properties.setProperty(prefix + "pid", Long.toString(member.pid));
            if (member.host != null) {
                properties.setProperty(prefix + "host", member.host.toString());
            }
            member.spec.settings().forEach((key, value) -> properties.setProperty(prefix + "setting." + key, value));
        });
        Path file = state.resolve(ClusterLayout.STATE_FILE);
        Path temporary = state.resolve(ClusterLayout.STATE_FILE + ".tmp");
        try {
            Files.deleteIfExists(temporary); // left by a crash between write and move
            PrivateFiles.createFile(temporary);
        } catch (IOException e) {
            throw new ClusterException("cannot write " + temporary + ": " + e.getMessage(), e);
        }
        try (OutputStream output = Files.newOutputStream(temporary)) {
            properties.store(output, "written by the cluster launcher (bin/xtreemfs-cluster); do not edit while it runs");
        } catch (IOException e) {
            throw new ClusterException("cannot write " + temporary + ": " + e.getMessage(), e);
        }
        try {
            Files.move(temporary, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new ClusterException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Starts these (stopped) servers together and waits until each is ready and registered. */
    private void startAndAwait(List<String> names) {
        long startedAtMs = System.currentTimeMillis();
        for (String name : names) {
            Member member = member(name);
            try {
                member.running = runner.start(member.spec);
            } catch (IOException e) {
                throw new ClusterException("cannot start " + name + ": " + e.getMessage(), e);
            }
            member.pid = member.running.pid();
        }
        save();
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (String name : names) {
            Member member = member(name);
            Optional<ReadyAnnouncement> ready;
            while ((ready = member.running.ready()).isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new ClusterException(name + " not ready (no READY line) within " + READY_TIMEOUT.toSeconds()
                            + " s; last lines of " + member.spec.log() + ":\n" + ProcessRunner.tail(member.spec.log()));
                }
                pause();
            }
            // Port 0 became a real port: kept, so a restart binds the same one and clients' addresses stay valid.
            member.spec = member.spec.withSetting(member.spec.kind().portKey(),
                    Integer.toString(ready.get().rpc().port()));
            if (statusPorts) {
                // The same for the status page: the server bound a free port itself and announced it, so no port is
                // chosen here that another process could take before the server binds it.
                member.spec = member.spec.withSetting(member.spec.kind().statusPortKey(),
                        Integer.toString(ready.get().status().port()));
            }
        }
        save();
        awaitRegistered(names.stream().filter(name -> member(name).spec.kind() != ServerKind.DIR).toList(),
                startedAtMs);
    }

    /**
     * Waits until the DIR lists each named server as available, at its port, with a heartbeat from after
     * {@code sinceMs} (so a killed server's old registration does not count).
     */
    private void awaitRegistered(List<String> names, long sinceMs) {
        if (names.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + REGISTRATION_TIMEOUT.toNanos();
        try (RpcClient rpc = new RpcClient("cluster-launcher", FrameLimits.DEFAULT, RpcClient.CONNECT_TIMEOUT_MS_DEFAULT,
                clientTls())) {
            DirServiceClient dir = new DirServiceClient(rpc, dirSocketAddress(), DIR_TIMEOUT_MS);
            List<String> missing = new ArrayList<>(names);
            while (true) {
                missing.removeIf(name -> registered(dir, member(name), sinceMs));
                if (missing.isEmpty()) {
                    return;
                }
                for (String name : missing) {
                    if (!member(name).running.alive()) {
                        throw new ClusterException(name + " exited before it registered at the DIR; last lines of "
                                + member(name).spec.log() + ":\n" + ProcessRunner.tail(member(name).spec.log()));
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new ClusterException("not registered at the DIR " + dirAddress() + " within "
                            + REGISTRATION_TIMEOUT.toSeconds() + " s: " + String.join(", ", missing));
                }
                pause();
            }
        }
    }

    /**
     * Whether the DIR lists the server as available since {@code sinceMs} at its port.
     *
     * @throws ClusterException when a server on a host of its own registered another address than its host's
     *     (others could not reach it: see foundation AdvertisedAddress)
     */
    private static boolean registered(DirServiceClient dir, Member member, long sinceMs) {
        List<AddressMapping> mappings;
        try {
            boolean available = RpcClient.await(dir.serviceGetByUuid(member.uuid)).getServicesList().stream()
                    .anyMatch(service -> service.getStatus() == ServiceStatus.SERVICE_STATUS_AVAILABLE
                            && service.getLastHeartbeatMs() >= sinceMs);
            if (!available) {
                return false;
            }
            mappings = RpcClient.await(dir.addressMappingsGet(member.uuid)).getMappingsList().stream()
                    .filter(mapping -> mapping.getPort() == member.port()).toList();
        } catch (Exception e) {
            return false; // the DIR itself may be restarting: ask again
        }
        if (member.host != null && !mappings.isEmpty()
                && mappings.stream().noneMatch(mapping -> mapping.getAddress().equals(member.address()))) {
            throw new ClusterException(member.spec.name() + " registered at the DIR as " + mappings.get(0).getAddress()
                    + ":" + member.port() + ", not at its host's address " + member.host + ": other hosts cannot"
                    + " reach it there");
        }
        return !mappings.isEmpty();
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted while waiting for the cluster", e);
        }
    }

    private Member member(String name) {
        Member member = members.get(name);
        if (member == null) {
            throw new IllegalArgumentException("no server named '" + name + "' in " + state + " (servers: "
                    + String.join(", ", members.keySet()) + ")");
        }
        return member;
    }

    public Path state() {
        return state;
    }

    public ClusterDescription.Tls tls() {
        return tls;
    }

    /**
     * The CA certificate and the administrator's client certificate (CN=root, UID=0, OU=0) of a TLS cluster, which
     * the launcher itself uses; empty without TLS.
     */
    public Optional<TlsFiles> tlsFiles() {
        if (!tls.enabled()) {
            return Optional.empty();
        }
        TestAuthority.Issued admin = new TestAuthority.Issued(
                ClusterLayout.tlsFolder(state).resolve(ClusterLayout.ADMIN_CERTIFICATE + ".pem"),
                ClusterLayout.tlsFolder(state).resolve(ClusterLayout.ADMIN_CERTIFICATE + ".key"));
        return Optional.of(new TlsFiles(ClusterLayout.tlsFolder(state).resolve(TestAuthority.AUTHORITY + ".pem"),
                admin));
    }

    /** What a TLS cluster's clients need: the CA to trust and a client certificate. */
    public record TlsFiles(Path authority, TestAuthority.Issued administrator) {}

    /** TLS as the administrator, for clients of this cluster (ClientOptions.tls, RpcClient); null without TLS. */
    public RpcTls clientTls() {
        return tlsFiles().map(files -> clientTls(files.authority(), files.administrator())).orElse(null);
    }

    /** TLS presenting {@code certificate}, trusting the cluster's CA. */
    public static RpcTls clientTls(Path authority, TestAuthority.Issued certificate) {
        try {
            return RpcTls.client(authority, Optional.of(certificate.certificate()),
                    Optional.of(certificate.privateKey()));
        } catch (IOException e) {
            throw new ClusterException("the cluster's TLS files are unusable: " + e.getMessage(), e);
        }
    }

    /**
     * Issues a client certificate for a user of a TLS cluster (CN=user, UID=uid, OU=gid: what an MRC with
     * mrc.identity.fromCertificate takes as the caller) into STATE/tls/NAME.pem and NAME.key.
     */
    public TestAuthority.Issued issueUserCertificate(String name, String user, int uid, int gid) {
        if (!tls.enabled()) {
            throw new ClusterException("the cluster in " + state + " has no TLS (start it with --tls)");
        }
        try {
            return TestAuthority.open(ClusterLayout.tlsFolder(state)).issue(name,
                    "/CN=" + user + "/UID=" + uid + "/OU=" + gid, List.of());
        } catch (IOException e) {
            throw new ClusterException("cannot issue a certificate for " + user + ": " + e.getMessage(), e);
        }
    }

    /** "HOST:PORT" of the DIR: 127.0.0.1, or its own host's address. */
    public String dirAddress() {
        return member("dir").address() + ":" + member("dir").port();
    }

    /** The DIR's URL with the scheme its port speaks, e.g. "pbrpcs://127.0.0.1:PORT" (what the servers are given). */
    public String dirUrl() {
        return member("dir").scheme().url(dirAddress());
    }

    /** The DIR's address with the scheme its port speaks. */
    public InetSocketAddress dirSocketAddress() {
        return new ServiceAddress(member("dir").scheme(), member("dir").address(), member("dir").port());
    }

    /** Every server's name: dir, mrc, then the OSDs in description order. */
    public List<String> names() {
        return List.copyOf(members.keySet());
    }

    public List<String> osdNames() {
        return members.values().stream().filter(member -> member.spec.kind() == ServerKind.OSD)
                .map(member -> member.spec.name()).toList();
    }

    public int port(String name) {
        return member(name).port();
    }

    public String uuid(String name) {
        return member(name).uuid;
    }

    /** The server's data folder (database or objects). */
    public Path dataFolder(String name) {
        return Path.of(member(name).spec.settings().get(ClusterLayout.dataKey(member(name).spec.kind())));
    }

    /** The running server as its runner sees it (for an in-process runner: the server object), if it runs. */
    public Optional<RunningServer> running(String name) {
        Member member = member(name);
        return Optional.ofNullable(member.running).filter(RunningServer::alive);
    }

    /** Sends a signal to one server (KILL, TERM, STOP, CONT, ...); KILL and TERM return once it has ended. */
    public void kill(String name, String signal) {
        Member member = member(name);
        if (member.running == null || !member.running.alive()) {
            throw new ClusterException(name + " is not running");
        }
        member.running.signal(signal);
    }

    /** Stops one server gracefully; nothing happens if it does not run. */
    public void stopServer(String name) {
        Member member = member(name);
        if (member.running != null) {
            member.running.stop();
        }
    }

    /** Starts one stopped (or killed) server again on the same port, data and UUID, and waits until it is ready. */
    public void startServer(String name) {
        Member member = member(name);
        if (member.running != null && member.running.alive()) {
            throw new ClusterException(name + " is already running (pid " + member.pid + ")");
        }
        startAndAwait(List.of(name));
    }

    /**
     * Starts one stopped server again on its data and UUID but on a new port, and waits until it is registered
     * there: clients must then find it through the DIR (what a server moved to another port looks like).
     */
    public void startServerOnNewPort(String name) {
        Member member = member(name);
        if (member.running != null && member.running.alive()) {
            throw new ClusterException(name + " is already running (pid " + member.pid + ")");
        }
        member.spec = member.spec.withSetting(member.spec.kind().portKey(), "0");
        startAndAwait(List.of(name));
    }

    /** Stops the server if it runs, then starts it again on the same port and data and waits until it is ready. */
    public void restart(String name) {
        stopServer(name);
        startServer(name);
    }

    /** Starts every server that does not run (DIR first), e.g. a cluster stopped earlier, on its data and ports. */
    public void startStopped() {
        List<String> stopped = members.keySet().stream().filter(name -> running(name).isEmpty()).toList();
        if (stopped.contains("dir")) {
            startAndAwait(List.of("dir"));
        }
        List<String> others = stopped.stream().filter(name -> !name.equals("dir")).toList();
        if (!others.isEmpty()) {
            startAndAwait(others);
        }
    }

    public List<ServerStatus> status() {
        List<ServerStatus> lines = new ArrayList<>();
        members.forEach((name, member) -> {
            boolean running = member.running != null && member.running.alive();
            lines.add(new ServerStatus(name, member.spec.kind(), running, running ? member.pid : -1, member.address(),
                    member.port(), Integer.parseInt(member.spec.settings().get(member.spec.kind().statusPortKey())),
                    member.uuid, member.summary, member.spec.log(), member.spec.networkNamespace(), member.scheme()));
        });
        return lines;
    }

    /** The FUSE mounts below STATE/mnt (from /proc/self/mounts). */
    public List<Path> mounts() {
        Path mountFolder = ClusterLayout.mountFolder(state);
        List<Path> mounted = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] fields = line.split(" ");
                if (fields.length > 2 && fields[2].startsWith("fuse")) {
                    Path point = Path.of(fields[1].replace("\\040", " "));
                    if (point.startsWith(mountFolder)) {
                        mounted.add(point);
                    }
                }
            }
        } catch (IOException e) {
            // No /proc: nothing to unmount that we could know of.
        }
        return mounted;
    }

    /**
     * Unmounts every FUSE mount below STATE/mnt first (the clients flush to servers that still run), then
     * stops every server at once (each takes seconds to close its network; one after another adds up).
     */
    public void stop() {
        for (Path mount : mounts()) {
            unmount(mount);
        }
        List<Thread> stopping = new ArrayList<>();
        List<RuntimeException> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (String name : members.keySet()) {
            Thread thread = new Thread(() -> {
                try {
                    stopServer(name);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }, "stop-" + name);
            thread.start();
            stopping.add(thread);
        }
        for (Thread thread : stopping) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClusterException("interrupted while stopping the cluster", e);
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    private static void unmount(Path mount) {
        try {
            Process process = new ProcessBuilder("fusermount3", "-u", mount.toString()).inheritIO().start();
            if (process.waitFor() != 0) {
                new ProcessBuilder("fusermount3", "-uz", mount.toString()).inheritIO().start().waitFor();
            }
        } catch (IOException e) {
            throw new ClusterException("cannot unmount " + mount + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted while unmounting " + mount, e);
        }
    }

    /**
     * Removes what a stopped cluster left in {@code state} (its data, logs and state file; nothing else), so a new
     * one can start there. Refuses while one of its servers runs or something is mounted below STATE/mnt.
     */
    public static void wipe(Path state, ServerRunner runner) {
        state = state.toAbsolutePath().normalize();
        if (!exists(state)) {
            return;
        }
        LocalCluster cluster = open(state, runner);
        cluster.status().stream().filter(ServerStatus::running).findFirst().ifPresent(running -> {
            throw new ClusterException("cannot wipe " + cluster.state + ": " + running.name() + " runs (pid "
                    + running.pid() + "); stop the cluster first");
        });
        if (!cluster.mounts().isEmpty()) {
            throw new ClusterException("cannot wipe " + cluster.state + ": " + cluster.mounts().get(0) + " is mounted");
        }
        for (Path path : List.of(state.resolve("data"), state.resolve("log"), ClusterLayout.tlsFolder(state),
                state.resolve(ClusterLayout.STATE_FILE))) {
            deleteRecursively(path);
        }
    }

    private static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(path)) {
            for (Path each : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(each);
            }
        } catch (IOException e) {
            throw new ClusterException("cannot delete " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        stop();
    }
}
