package org.xtreemfs.client.tools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.Volume;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.mrc.FileLayoutResponse;
import org.xtreemfs.interfaces.mrc.Stat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * xtfsutil (first version): prints what the client knows about a file or directory: volume, file id, type,
 * size, striping policy, the XLoc (OSD UUIDs and addresses by stripe position) and the volume's reservation.
 */
@Command(name = "xtfsutil", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Shows the layout of a file or directory in XtreemFS.",
                "PATH is [pbrpc://]host[:port]/volume[/path/in/volume]; host:port is the DIR's (default 32638),",
                "or an existing local path inside a mount.xtreemfs mount (found in /proc/self/mountinfo;",
                "a name that exists locally is taken as a local path, pbrpc:// forces a URL)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:shown", "1:the servers refused (e.g. no such file) or could not be reached",
                "2:a bad option or value, or a local path that is not on an XtreemFS mount"})
public final class XtfsutilMain implements Callable<Integer> {
    private static final int S_IFMT = 0170000;

    @Parameters(index = "0", paramLabel = "PATH",
            description = "[pbrpc://]host[:port]/volume[/path/in/volume] or a path in a mounted volume")
    String target;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec commandSpec;

    public static void main(String[] args) {
        ToolRunner.main(new XtfsutilMain(), args);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = commandSpec.commandLine().getOut();
        VolumeUrl url = urlOf(target);
        try (Client client = connection.connect(url)) {
            Volume volume = client.openVolume(url.volumeName());
            FileLayoutResponse layout = volume.fileLayout(url.path());
            Stat stat = layout.hasStat() ? layout.getStat() : volume.getattr(url.path());
            String volumeId = layout.getVolumeId().isEmpty() ? volume.id() : layout.getVolumeId();
            out.printf("%-17s %s%n", "path:", url);
            out.printf("%-17s %s (id %s, MRC %s)%n", "volume:", volume.name(), volumeId, volume.mrcUuid());
            out.printf("%-17s %s%n", "file id:", layout.getFileId().isEmpty()
                    ? volumeId + ":" + stat.getInode() : layout.getFileId());
            out.printf("%-17s %s%n", "type:", fileType(stat.getMode()));
            out.printf("%-17s %s%n", "mode:", Describe.mode(stat.getMode()));
            out.printf("%-17s uid %d gid %d%n", "owner:", stat.getUid(), stat.getGid());
            out.printf("%-17s %d bytes%n", "size:", stat.getSizeBytes());
            out.printf("%-17s %d%n", "truncate epoch:", stat.getTruncateEpoch());
            if (layout.getXlocs().getReplicasCount() == 0) {
                out.printf("%-17s %s%n", "XLoc:", "none (no objects: directory, link or file without an XLoc)");
            } else {
                out.printf("%-17s version %d, %d replica(s)%n", "XLoc:", layout.getXlocs().getVersion(),
                        layout.getXlocs().getReplicasCount());
                int replicaNumber = 1;
                for (Replica replica : layout.getXlocs().getReplicasList()) {
                    out.printf("  replica %d: striping %s%n", replicaNumber++, Describe.striping(replica.getStripingPolicy()));
                    for (int position = 0; position < replica.getOsdUuidsCount(); position++) {
                        String osdUuid = replica.getOsdUuids(position);
                        out.printf("    stripe position %d: OSD %s at %s%n", position, osdUuid, address(client, osdUuid));
                    }
                }
            }
            out.printf("%-17s %s%n", "reservation:", Describe.reservation(layout.getReservation()));
        }
        return ToolRunner.EXIT_OK;
    }

    /** A local path inside a mount is looked up in the mount table; anything else must be a URL. */
    static VolumeUrl urlOf(String target) {
        return MountedPath.isLocalPath(target) ? MountedPath.urlOf(Path.of(target)) : VolumeUrl.parse(target);
    }

    private static String address(Client client, String osdUuid) {
        try {
            var address = client.resolve(osdUuid);
            return address.getHostString() + ":" + address.getPort();
        } catch (XtreemFSException e) {
            return "(unknown: " + e.getMessage() + ")";
        }
    }

    static String fileType(int mode) {
        return switch (mode & S_IFMT) {
            case 0100000 -> "regular file";
            case 0040000 -> "directory";
            case 0120000 -> "symbolic link";
            case 0010000 -> "fifo";
            case 0140000 -> "socket";
            case 0020000 -> "character device";
            case 0060000 -> "block device";
            default -> "unknown (mode " + Integer.toOctalString(mode) + ")";
        };
    }
}
