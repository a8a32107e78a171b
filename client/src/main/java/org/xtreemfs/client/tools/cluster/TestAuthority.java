package org.xtreemfs.client.tools.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.xtreemfs.foundation.files.PrivateFiles;

/**
 * A test certificate authority in one folder (mode 0700), made with the openssl commands that
 * servers/foundation's README documents, so what the launcher does is what an operator would type: {@code ca.pem}
 * and {@code ca.key}, and for each name {@code NAME.pem} (signed by the CA) and {@code NAME.key} (PKCS#8 PEM,
 * unencrypted, 0600 as openssl writes private keys). Keys are EC P-256 (fast to make and to handshake). For tests
 * and local clusters only: a real deployment's CA key does not sit next to the cluster.
 */
public final class TestAuthority {
    static final String AUTHORITY = "ca";
    private static final int VALID_DAYS = 365;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private final Path folder;

    /** A certificate and its private key. */
    public record Issued(Path certificate, Path privateKey) {}

    private TestAuthority(Path folder) {
        this.folder = folder;
    }

    /** Makes a new CA in {@code folder} (created 0700; must not hold one). */
    public static TestAuthority create(Path folder) throws IOException {
        PrivateFiles.folder(folder);
        TestAuthority authority = new TestAuthority(folder);
        if (Files.exists(authority.authorityFile())) {
            throw new IOException(folder + " holds a CA already");
        }
        authority.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", AUTHORITY + ".key", "-out", AUTHORITY + ".pem", "-days", Integer.toString(VALID_DAYS),
                "-subj", "/CN=XtreemFS-QoS test CA");
        return authority;
    }

    /** The CA a folder holds. */
    public static TestAuthority open(Path folder) throws IOException {
        TestAuthority authority = new TestAuthority(folder);
        if (!Files.isReadable(authority.authorityFile())) {
            throw new IOException("no test CA in " + folder + " (" + authority.authorityFile() + " missing)");
        }
        return authority;
    }

    public Path folder() {
        return folder;
    }

    /** The CA's certificate: what clients and servers trust. */
    public Path authorityFile() {
        return folder.resolve(AUTHORITY + ".pem");
    }

    public Issued issued(String name) {
        return new Issued(folder.resolve(name + ".pem"), folder.resolve(name + ".key"));
    }

    /**
     * Issues {@code NAME.pem}/{@code NAME.key} for {@code subject} (openssl's "/CN=.../UID=.../OU=..." form) naming
     * {@code alternativeNames} ("IP:127.0.0.1", "DNS:localhost"; empty for a client certificate), replacing an
     * earlier one of that name.
     */
    public Issued issue(String name, String subject, List<String> alternativeNames) throws IOException {
        if (!NAME.matcher(name).matches() || name.equals(AUTHORITY)) {
            throw new IllegalArgumentException("a certificate name is letters, digits, '.', '_' and '-' (and not '"
                    + AUTHORITY + "'), not '" + name + "'");
        }
        Issued issued = issued(name);
        Files.deleteIfExists(issued.certificate());
        Files.deleteIfExists(issued.privateKey());
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                name + ".key", "-out", name + ".csr", "-subj", subject);
        List<String> sign = new ArrayList<>(List.of("x509", "-req", "-in", name + ".csr", "-CA", AUTHORITY + ".pem",
                "-CAkey", AUTHORITY + ".key", "-CAcreateserial", "-out", name + ".pem", "-days",
                Integer.toString(VALID_DAYS)));
        if (!alternativeNames.isEmpty()) {
            Path extensions = folder.resolve(name + ".ext");
            Files.writeString(extensions, "subjectAltName=" + String.join(",", alternativeNames) + "\n");
            sign.addAll(List.of("-extfile", name + ".ext"));
        }
        openssl(sign.toArray(String[]::new));
        Files.deleteIfExists(folder.resolve(name + ".csr"));
        Files.deleteIfExists(folder.resolve(name + ".ext"));
        return issued;
    }

    private void openssl(String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process;
        try {
            process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run openssl (is it installed?): " + e.getMessage(), e);
        }
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IOException(String.join(" ", command) + " failed in " + folder + ": " + output.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running openssl", e);
        }
    }
}
