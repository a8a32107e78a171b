package org.xtreemfs.common.clients.hadoop;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.BlockLocation;
import org.xtreemfs.client.striping.StripeLayout;

/**
 * Hadoop block locations from a file's striping: the file is cut into blocks of {@code blockSizeBytes}, and each
 * block is located on the OSDs that store at least one of its objects (object n on stripe position n mod width).
 * Names (host:port) are one per OSD, hosts one per distinct host. Pure arithmetic; the caller resolves the OSDs'
 * addresses.
 */
final class BlockLocations {
    private BlockLocations() {}

    /**
     * The blocks overlapping [start, start + length) of a file of {@code fileSizeBytes}, in file order; empty when
     * the range starts at or past the end. {@code osdAddresses} are by stripe position.
     */
    static BlockLocation[] of(StripeLayout layout, List<InetSocketAddress> osdAddresses, long blockSizeBytes,
            long fileSizeBytes, long start, long length) {
        if (blockSizeBytes <= 0) {
            throw new IllegalArgumentException("block size must be positive, got " + blockSizeBytes);
        }
        long end = Math.min(fileSizeBytes, start + Math.max(0, length));
        List<BlockLocation> blocks = new ArrayList<>();
        if (start >= fileSizeBytes || length <= 0 && fileSizeBytes > 0) {
            return new BlockLocation[0];
        }
        for (long blockStart = start / blockSizeBytes * blockSizeBytes; blockStart < end; blockStart += blockSizeBytes) {
            long blockLength = Math.min(blockSizeBytes, fileSizeBytes - blockStart);
            Set<Integer> positions = new LinkedHashSet<>();
            long firstObject = layout.objectNumber(blockStart);
            long lastObject = layout.objectNumber(blockStart + blockLength - 1);
            for (long object = firstObject; object <= lastObject && positions.size() < layout.width(); object++) {
                positions.add(layout.stripePosition(object));
            }
            List<String> names = new ArrayList<>();
            // Several OSDs may share a host; a scheduler wants each host once.
            Set<String> hosts = new LinkedHashSet<>();
            List<String> topologyPaths = new ArrayList<>();
            for (int position : positions) {
                InetSocketAddress address = osdAddresses.get(position);
                String name = address.getHostString() + ":" + address.getPort();
                names.add(name);
                hosts.add(address.getHostString());
                topologyPaths.add("/default-rack/" + name);
            }
            blocks.add(new BlockLocation(names.toArray(new String[0]), hosts.toArray(new String[0]),
                    topologyPaths.toArray(new String[0]), blockStart, blockLength));
        }
        return blocks.toArray(new BlockLocation[0]);
    }
}
