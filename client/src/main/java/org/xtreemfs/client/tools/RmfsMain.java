package org.xtreemfs.client.tools;

import java.util.concurrent.Callable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.VolumeUrl;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** rmfs.xtreemfs: deletes a volume through the MRC that serves it. */
@Command(name = "rmfs.xtreemfs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Deletes a volume and its namespace.",
                "URL is [pbrpc[s]://]host[:port]/volume; host:port is the DIR's (default port 32638)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the volume was deleted", "1:the servers refused (e.g. unknown volume) or could not be"
                + " reached", "2:a bad option or value"})
public final class RmfsMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "URL", description = "The volume to delete: [pbrpc[s]://]host[:port]/volume.")
    VolumeUrl url;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec commandSpec;

    public static void main(String[] args) {
        ToolRunner.main(new RmfsMain(), args);
    }

    @Override
    public Integer call() throws Exception {
        if (!"/".equals(url.path())) {
            throw new IllegalArgumentException("URL: '" + url + "' names a path inside the volume; give only"
                    + " [pbrpc[s]://]host[:port]/volume");
        }
        try (Client client = connection.connect(url)) {
            client.deleteVolume(url.volumeName());
        }
        commandSpec.commandLine().getOut().println("deleted volume '" + url.volumeName() + "'");
        return ToolRunner.EXIT_OK;
    }
}
