package org.xtreemfs.common.clients.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar users install (target/*-hadoop.jar, built by the shade plugin) works on Hadoop's classpath alone: Hadoop's
 * own shell ({@code FsShell}, what {@code hadoop fs} runs) in a separate JVM whose classpath is hadoop-common and its
 * dependencies plus that jar, without the project's modules, protobuf-java or logback, writes, lists and reads a
 * file on the test cluster. Runs after package (tag shaded-jar, see the pom).
 */
@Tag("shaded-jar")
class ShadedJarTest {
    @Test
    void everyBundledClassIsRelocatedUnderOrgXtreemfs() throws IOException {
        try (JarFile jar = new JarFile(shadedJar().toFile())) {
            List<String> outside = jar.stream().map(entry -> entry.getName())
                    .filter(name -> name.endsWith(".class") && !name.startsWith("org/xtreemfs/"))
                    .collect(Collectors.toList());
            assertThat(outside).isEmpty();
            assertThat(jar.getEntry("org/xtreemfs/shaded/protobuf/Message.class")).isNotNull();
            assertThat(jar.getEntry("org/xtreemfs/shaded/netty/buffer/ByteBuf.class")).isNotNull();
        }
    }

    @Test
    void hadoopsShellWritesListsAndReadsThroughTheShadedJar(@TempDir Path folder) throws Exception {
        SharedCluster cluster = SharedCluster.get();
        Path local = folder.resolve("local.txt");
        Files.writeString(local, "shaded jar on Hadoop's classpath\n".repeat(5000), StandardCharsets.UTF_8);
        String remoteFolder = cluster.fileSystemUri() + "/" + SharedCluster.VOLUME + "/shaded";
        shell(folder, "-mkdir", "-p", remoteFolder);
        String remote = remoteFolder + "/copied.txt";
        shell(folder, "-put", local.toString(), remote);
        assertThat(shell(folder, "-ls", remote)).contains("/hadoop/shaded/copied.txt")
                .contains(String.valueOf(Files.size(local)));
        Path back = folder.resolve("back.txt");
        shell(folder, "-get", remote, back.toString());
        assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(local));
        shell(folder, "-rm", "-r", remoteFolder);
    }

    private static Path shadedJar() {
        String jar = System.getProperty("xtreemfs.hadoop.shadedJar");
        assertThat(jar).as("system property xtreemfs.hadoop.shadedJar (set by the pom)").isNotNull();
        return Path.of(jar);
    }

    /**
     * Hadoop's classpath as an installation has it: its configuration folder (a core-site.xml as the README shows),
     * no project module, no protobuf-java, no logback.
     */
    private static String hadoopClasspath(Path configurationFolder) throws IOException {
        Files.writeString(configurationFolder.resolve("core-site.xml"), """
                <?xml version="1.0"?>
                <configuration>
                  <property><name>fs.xtreemfs.impl</name><value>org.xtreemfs.common.clients.hadoop.XtreemFSFileSystem</value></property>
                  <property><name>fs.AbstractFileSystem.xtreemfs.impl</name><value>org.xtreemfs.common.clients.hadoop.XtreemFS</value></property>
                </configuration>
                """, StandardCharsets.UTF_8);
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains(File.separator + "target") && !entry.contains("/org/xtreemfs/")
                        && !entry.contains("/com/google/protobuf/") && !entry.contains("/ch/qos/logback/")
                        && !entry.contains("/org/junit/") && !entry.contains("/org/assertj/"))
                .collect(Collectors.joining(File.pathSeparator, configurationFolder + File.pathSeparator,
                        File.pathSeparator + shadedJar()));
    }

    private static Path configuration(Path folder) throws IOException {
        return Files.createDirectories(folder.resolve("conf"));
    }

    private static String shell(Path folder, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", hadoopClasspath(configuration(folder)),
                "org.apache.hadoop.fs.FsShell"));
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile(folder, "shell", ".out");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("hadoop fs %s finished", List.of(arguments)).isTrue();
        String printed = Files.readString(output);
        assertThat(process.exitValue()).as("hadoop fs %s exit code; output:%n%s", List.of(arguments), printed)
                .isZero();
        return printed;
    }
}
