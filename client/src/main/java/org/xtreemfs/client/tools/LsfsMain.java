package org.xtreemfs.client.tools;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.xtreemfs.foundation.replication.ReplicationRules;
import org.xtreemfs.client.Client;
import org.xtreemfs.client.VolumeUrl;
import org.xtreemfs.client.XtreemFSException;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.mrc.QosStatus;
import org.xtreemfs.interfaces.mrc.Volume;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** lsfs.xtreemfs: lists the volumes of every MRC the DIR knows, one line each. */
@Command(name = "lsfs.xtreemfs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lists volumes: name, id, owner, mode, striping policy, replicas per file and reservation.",
                "With --osds, lists the OSDs instead: usage type, device class, performance profile (its source,",
                "sequential throughput at 1 stream and at its current stream count, random IOPS), availability,",
                "and what is reserved and free on each (capacity, throughput, IOPS), from the MRC's reservation",
                "ledger and the DIR. Sizes and rates are rounded down, so a figure shown free is admissible.",
                "DIR_URL is [pbrpc[s]://]host[:port] (default port 32638)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:listed (possibly no volumes)", "1:the servers could not be reached",
                "2:a bad option or value"})
public final class LsfsMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR_URL", description = "The DIR: [pbrpc[s]://]host[:port].")
    String dirUrl;

    @Option(names = "--osds", description = "List the OSDs with their type, profile, reservations and free resources.")
    boolean osds;

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
        if (osds) {
            return listOsds(url);
        }
        List<Volume> volumes;
        try (Client client = connection.connect(url)) {
            volumes = client.listVolumes();
        }
        PrintWriter out = commandSpec.commandLine().getOut();
        if (volumes.isEmpty()) {
            out.println("no volumes at " + url);
            return ToolRunner.EXIT_OK;
        }
        out.printf("%-24s %-36s %-12s %-5s %-36s %-8s %-12s %s%n", "NAME", "ID", "OWNER", "MODE", "STRIPING",
                "REPLICAS", "READ-ROUTING", "RESERVATION");
        volumes.stream().sorted(Comparator.comparing(Volume::getName)).forEach(volume ->
                out.printf("%-24s %-36s %-12s %-5s %-36s %-8d %-12s %s%n", volume.getName(), volume.getId(),
                        volume.getOwnerUsername(), Describe.mode(volume.getMode()),
                        Describe.striping(volume.getDefaultStripingPolicy()),
                        ReplicationRules.replicas(volume.getDefaultReplicationPolicy()),
                        ReplicationRules.readRoutingName(volume.getDefaultReplicationPolicy().getReadRouting()),
                        Describe.reservation(volume.getReservation())));
        return ToolRunner.EXIT_OK;
    }

    private int listOsds(VolumeUrl url) throws XtreemFSException {
        PrintWriter out = commandSpec.commandLine().getOut();
        try (Client client = connection.connect(url)) {
            QosStatus status = client.qosStatus();
            List<Service> dirOsds = client.services(ServiceType.SERVICE_TYPE_OSD, true);
            Map<String, String> volumeNames = new HashMap<>();
            for (Volume volume : client.listVolumes()) {
                volumeNames.put(volume.getId(), volume.getName());
            }
            OsdListing.lines(status, dirOsds, volumeNames, uuid -> Describe.osdAddress(client, uuid))
                    .forEach(out::println);
        }
        return ToolRunner.EXIT_OK;
    }
}
