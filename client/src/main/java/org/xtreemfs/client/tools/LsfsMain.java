package org.xtreemfs.client.tools;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.interfaces.mrc.Volume;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** lsfs.xtreemfs: lists the volumes of every MRC the DIR knows, one line each. */
@Command(name = "lsfs.xtreemfs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lists volumes: name, id, owner, mode, striping policy and reservation.",
                "DIR_URL is [pbrpc://]host[:port] (default port 32638)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:listed (possibly no volumes)", "1:the servers could not be reached",
                "2:a bad option or value"})
public final class LsfsMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR_URL", description = "The DIR: [pbrpc://]host[:port].")
    String dirUrl;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec commandSpec;

    public static void main(String[] args) {
        ToolRunner.main(new LsfsMain(), args);
    }

    @Override
    public Integer call() throws Exception {
        VolumeUrl url = VolumeUrl.parseDirectoryService(dirUrl);
        List<Volume> volumes;
        try (Client client = connection.connect(url)) {
            volumes = client.listVolumes();
        }
        PrintWriter out = commandSpec.commandLine().getOut();
        if (volumes.isEmpty()) {
            out.println("no volumes at " + url);
            return ToolRunner.EXIT_OK;
        }
        out.printf("%-24s %-36s %-12s %-5s %-36s %s%n", "NAME", "ID", "OWNER", "MODE", "STRIPING", "RESERVATION");
        volumes.stream().sorted(Comparator.comparing(Volume::getName)).forEach(volume ->
                out.printf("%-24s %-36s %-12s %-5s %-36s %s%n", volume.getName(), volume.getId(),
                        volume.getOwnerUsername(), Describe.mode(volume.getMode()),
                        Describe.striping(volume.getDefaultStripingPolicy()),
                        Describe.reservation(volume.getReservation())));
        return ToolRunner.EXIT_OK;
    }
}
