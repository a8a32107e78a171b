package org.xtreemfs.client.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.FileHandle;
import org.xtreemfs.client.OpenFlags;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.VolumeUrl;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * xtfscp: copies one file into a volume ({@code put}) or out of it ({@code get}) through the Java client, for
 * machines without the FUSE mount. "-" stands for standard input or output. Long copies report progress.
 */
@Command(name = "xtfscp", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Copies a file between the local file system and a volume through the Java client.",
                "URL is [pbrpc[s]://]host[:port]/volume/path; host:port is the DIR's (default port 32638)."},
        subcommands = {CopyMain.Put.class, CopyMain.Get.class},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:copied", "1:the servers refused or could not be reached, or a local I/O error",
                "2:a bad option or value"})
public final class CopyMain implements Callable<Integer> {
    static final int BLOCK_BYTES = 1024 * 1024;
    static final long PROGRESS_EVERY_BYTES = 256L * 1024 * 1024;

    @Spec
    CommandSpec commandSpec;

    public static void main(String[] args) {
        ToolRunner.main(new CopyMain(), args);
    }

    @Override
    public Integer call() {
        throw new picocli.CommandLine.ParameterException(commandSpec.commandLine(),
                "name a command: put LOCAL URL, or get URL LOCAL");
    }

    @Command(name = "put", mixinStandardHelpOptions = true,
            description = "Copies LOCAL (a file, or - for standard input) to URL, replacing its contents.")
    static final class Put implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "LOCAL", description = "Local file to read, or - for standard input.")
        String local;

        @Parameters(index = "1", paramLabel = "URL", description = "[pbrpc[s]://]host[:port]/volume/path to write.")
        VolumeUrl url;

        @Option(names = "--mode", paramLabel = "OCTAL", defaultValue = "644",
                description = "Permission bits of a newly created file, octal (default: ${DEFAULT-VALUE}).")
        String modeOctal;

        @Mixin
        ConnectionOptions connection;

        @Spec
        CommandSpec commandSpec;

        @Override
        public Integer call() throws IOException {
            requireFilePath(url);
            int mode = parseMode(modeOctal);
            requireReadableFile(local);
            PrintWriter err = commandSpec.commandLine().getErr();
            try (InputStream in = "-".equals(local) ? System.in : Files.newInputStream(Path.of(local));
                 Client client = connection.connect(url);
                 Volume volume = client.openVolume(url.volumeName());
                 FileHandle file = volume.open(url.path(),
                         OpenFlags.O_CREAT | OpenFlags.O_TRUNC | OpenFlags.O_WRONLY, mode)) {
                byte[] block = new byte[BLOCK_BYTES];
                Progress progress = new Progress(err, "written", -1);
                long offset = 0;
                int read;
                while ((read = in.readNBytes(block, 0, block.length)) > 0) {
                    file.write(offset, block, 0, read);
                    offset += read;
                    progress.reached(offset);
                }
                file.fsync();
                commandSpec.commandLine().getOut().printf("wrote %d bytes to %s%n", offset, url);
            }
            return ToolRunner.EXIT_OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Copies URL to LOCAL (a file, replaced if it exists, or - for standard output).")
    static final class Get implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "URL", description = "[pbrpc[s]://]host[:port]/volume/path to read.")
        VolumeUrl url;

        @Parameters(index = "1", paramLabel = "LOCAL", description = "Local file to write, or - for standard output.")
        String local;

        @Mixin
        ConnectionOptions connection;

        @Spec
        CommandSpec commandSpec;

        @Override
        public Integer call() throws IOException {
            requireFilePath(url);
            boolean toStandardOutput = "-".equals(local);
            PrintWriter err = commandSpec.commandLine().getErr();
            try (Client client = connection.connect(url);
                 Volume volume = client.openVolume(url.volumeName());
                 FileHandle file = volume.open(url.path(), OpenFlags.O_RDONLY, 0);
                 OutputStream out = toStandardOutput ? System.out : Files.newOutputStream(Path.of(local),
                         StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                long sizeBytes = file.getattr().getSizeBytes();
                byte[] block = new byte[BLOCK_BYTES];
                Progress progress = new Progress(err, "read", sizeBytes);
                long offset = 0;
                while (offset < sizeBytes) {
                    int read = file.read(offset, block, 0, (int) Math.min(block.length, sizeBytes - offset));
                    if (read <= 0) {
                        break;
                    }
                    out.write(block, 0, read);
                    offset += read;
                    progress.reached(offset);
                }
                out.flush();
                if (!toStandardOutput) {
                    commandSpec.commandLine().getOut().printf("read %d bytes from %s%n", offset, url);
                }
            }
            return ToolRunner.EXIT_OK;
        }
    }

    /** Reports every {@link #PROGRESS_EVERY_BYTES} copied on standard error, so long copies show life. */
    static final class Progress {
        private final PrintWriter err;
        private final String verb;
        private final long totalBytes;
        private long nextReportBytes = PROGRESS_EVERY_BYTES;

        /** {@code totalBytes} is -1 when the size is not known in advance (standard input). */
        Progress(PrintWriter err, String verb, long totalBytes) {
            this.err = err;
            this.verb = verb;
            this.totalBytes = totalBytes;
        }

        void reached(long copiedBytes) {
            if (copiedBytes < nextReportBytes) {
                return;
            }
            String total = totalBytes < 0 ? "" : " of " + (totalBytes >> 20);
            err.printf("xtfscp: %d%s MiB %s%n", copiedBytes >> 20, total, verb);
            err.flush();
            nextReportBytes = (copiedBytes / PROGRESS_EVERY_BYTES + 1) * PROGRESS_EVERY_BYTES;
        }
    }

    static void requireFilePath(VolumeUrl url) {
        if ("/".equals(url.path())) {
            throw new IllegalArgumentException("URL: '" + url + "' names a volume, not a file in it;"
                    + " give [pbrpc[s]://]host[:port]/volume/path");
        }
    }

    /**
     * Refuses a LOCAL that is not a readable regular file before the remote file is created: a folder opens on
     * Linux and fails only at the first read, which left an empty remote file behind.
     */
    static void requireReadableFile(String local) {
        if ("-".equals(local)) {
            return;
        }
        Path path = Path.of(local);
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("LOCAL: '" + local + "' does not exist");
        }
        if (Files.isDirectory(path)) {
            throw new IllegalArgumentException("LOCAL: '" + local + "' is a folder; xtfscp copies one file");
        }
        if (!Files.isReadable(path)) {
            throw new IllegalArgumentException("LOCAL: '" + local + "' cannot be read (permission denied)");
        }
    }

    static int parseMode(String octal) {
        try {
            int mode = Integer.parseInt(octal, 8);
            if (mode < 0 || mode > 07777) {
                throw new NumberFormatException();
            }
            return mode;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--mode: '" + octal + "' is not an octal mode in 0..7777");
        }
    }
}
