package org.xtreemfs.integration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.xtreemfs.client.Client;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcResponse;
import org.xtreemfs.foundation.stubs.OsdServiceClient;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.osd.storage.LogStructuredStore;

/**
 * Looking at one replica of a file whatever its layout: the tail keeps its objects in the log
 * (osd.storage.layout=role), so its bytes are read from that OSD over RPC (any member serves a read of a filled
 * replica), and its log segments are searched for the bytes written.
 */
final class Replicas {
    private Replicas() {}

    /**
     * The stored bytes of the objects among 0..objects-1 that the OSD's stripe position holds, by object number;
     * objects it stores none of left out.
     */
    static Map<Long, byte[]> objectsReadAt(Client client, FileCredentials credentials, String osdUuid, long objects)
            throws Exception {
        Map<Long, byte[]> stored = new TreeMap<>();
        String fileId = credentials.getXcap().getFileId();
        var member = ReplicaChain.of(credentials.getXlocs()).member(osdUuid).orElseThrow();
        int width = credentials.getXlocs().getReplicas(0).getOsdUuidsCount();
        try (RpcClient rpc = new RpcClient("replica-reader")) {
            OsdServiceClient osds = new OsdServiceClient(rpc, 30_000);
            var address = client.resolve(osdUuid);
            for (long object = member.stripePosition(); object < objects; object += width) {
                try (RpcResponse response = RpcClient.await(osds.read(address, null, ReadRequest.newBuilder()
                        .setCredentials(credentials).setFileId(fileId).setObjectNumber(object).setOffset(0)
                        .setLength(Volumes.OBJECT_SIZE_BYTES).build()))) {
                    byte[] bytes = response.dataBytes();
                    if (bytes.length > 0) {
                        stored.put(object, bytes);
                    }
                }
            }
        }
        return stored;
    }

    /**
     * The first {@code lengthBytes} of the file as the OSD's own copy holds them (objects of
     * {@link Volumes#OBJECT_SIZE_BYTES}, width 1): what {@link #objectsReadAt} reads, laid out by object number, with
     * every object there (failing the test otherwise).
     */
    static byte[] copyAt(Client client, FileCredentials credentials, String osdUuid, int lengthBytes) throws Exception {
        long objects = ((long) lengthBytes + Volumes.OBJECT_SIZE_BYTES - 1) / Volumes.OBJECT_SIZE_BYTES;
        Map<Long, byte[]> stored = objectsReadAt(client, credentials, osdUuid, objects);
        org.assertj.core.api.Assertions.assertThat(stored).as("objects on %s", osdUuid).hasSize((int) objects);
        byte[] copy = new byte[lengthBytes];
        stored.forEach((number, bytes) -> System.arraycopy(bytes, 0, copy, (int) (number * Volumes.OBJECT_SIZE_BYTES),
                Math.min(bytes.length, lengthBytes - (int) (number * Volumes.OBJECT_SIZE_BYTES))));
        return copy;
    }

    /**
     * Asserts that each member's own copy of the file ({@link #copyAt}: read from that OSD object by object, the
     * tail's from its log) holds every object of {@code expected} and equals it byte for byte, so the members equal
     * each other.
     */
    static void assertEachMemberHolds(Client client, FileCredentials credentials, List<String> members,
            byte[] expected) throws Exception {
        for (String member : members) {
            Bytes.assertSameBytes(copyAt(client, credentials, member, expected.length), expected);
        }
    }

    /** Whether the OSD's log segments hold {@code bytes} as one run (a record's data is stored contiguously). */
    static boolean logHolds(Path osdDataFolder, byte[] bytes) throws IOException {
        Path log = osdDataFolder.resolve(LogStructuredStore.LOG_FOLDER);
        if (!Files.isDirectory(log)) {
            return false;
        }
        try (Stream<Path> segments = Files.list(log)) {
            for (Path segment : segments.toList()) {
                if (indexOf(Files.readAllBytes(segment), bytes) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The chain of one stripe position, head first. */
    static List<String> chainOf(XLocSet xlocs, int position) {
        List<String> chain = new ArrayList<>();
        xlocs.getReplicasList().forEach(replica -> chain.add(replica.getOsdUuids(position)));
        return chain;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int start = 0; start <= haystack.length - needle.length; start++) {
            for (int i = 0; i < needle.length; i++) {
                if (haystack[start + i] != needle[i]) {
                    continue outer;
                }
            }
            return start;
        }
        return -1;
    }
}
