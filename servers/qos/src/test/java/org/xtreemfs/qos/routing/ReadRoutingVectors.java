package org.xtreemfs.qos.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The shared test vectors of read routing: inputs (a stream's reads and the replicas' reported queue lengths and
 * write-back) and what qos.routing decides for them (the stream's pattern, whether its read may be stolen, the
 * router's replica, the replica after stealing).
 * Generated from this package's code, checked in as {@code tests/vectors/read-routing.json}, and
 * replayed by {@link ReadRoutingVectorsTest} (Java) and cpp/test/read_routing_test.cc (the C++ client's port), so
 * both clients route the same reads to the same replicas. A rule change regenerates the file:
 * {@code mvn -B -ntp -q -pl servers/qos verify -Dtest=ReadRoutingVectorsTest -Dqos.routing.vectors.write=true}.
 *
 * <p>The JSON is proto3 JSON of cpp/test/read_routing_vectors.proto (which the C++ test parses with protobuf).
 */
final class ReadRoutingVectors {
    static final String PATTERN = "pattern";
    static final String ROUND_ROBIN = "round-robin";
    /** foundation.replication.ReplicationRules' pattern routing without stealing. */
    static final String PATTERN_NO_STEALING = "pattern-no-stealing";
    private static final long KIB = 1024;

    private record Read(long offsetBytes, long lengthBytes, List<Integer> queued, List<Long> dirtyBytes) {
        /** A read with every replica's write-back clean. */
        Read(long offsetBytes, long lengthBytes, List<Integer> queued) {
            this(offsetBytes, lengthBytes, queued, java.util.Collections.nCopies(queued.size(), 0L));
        }
    }

    private ReadRoutingVectors() {}

    /** The whole file's text. Deterministic: fixed seeds, no clock. */
    static String json() {
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"defaults\": {\"windowBytes\": ").append(StreamClassifier.WINDOW_BYTES_DEFAULT)
                .append(", \"confirmRequests\": ").append(StreamClassifier.CONFIRM_REQUESTS_DEFAULT)
                .append(", \"stealQueuedReadsMin\": ").append(ReadStealing.QUEUED_READS_MIN_DEFAULT)
                .append("},\n  \"cases\": [\n");
        List<String> cases = new ArrayList<>();
        long window = StreamClassifier.WINDOW_BYTES_DEFAULT;
        int confirm = StreamClassifier.CONFIRM_REQUESTS_DEFAULT;
        int steal = ReadStealing.QUEUED_READS_MIN_DEFAULT;
        cases.add(routedCase("sequential reader, idle replicas", PATTERN, 3, 0, window, confirm, steal,
                sequential(0, 128 * KIB, 8, List.of(0, 0, 0))));
        cases.add(routedCase("random reader, idle replicas", PATTERN, 3, 0, window, confirm, steal,
                randomReads(new SplittableRandom(1), 8, 4 * KIB, 1L << 30, List.of(0, 0, 0))));
        List<Read> loadedHead = new ArrayList<>(randomReads(new SplittableRandom(2), 6, 4 * KIB, 1L << 30,
                List.of(5, 0, 3)));
        loadedHead.addAll(randomReads(new SplittableRandom(3), 4, 4 * KIB, 1L << 30, List.of(5, 1, 0)));
        cases.add(routedCase("random reader, head loaded: the idle replica nearest the tail steals", PATTERN, 3, 0,
                window, confirm, steal, loadedHead));
        List<Read> loadedMiddle = new ArrayList<>(sequential(0, 128 * KIB, 4, List.of(1, 4, 0)));
        loadedMiddle.addAll(sequential(4 * 128 * KIB, 128 * KIB, 3, List.of(0, 4, 1)));
        cases.add(routedCase("sequential reader, middle loaded: a sequential read is never stolen", PATTERN, 3, 0,
                window, confirm, steal, loadedMiddle));
        cases.add(routedCase("new random stream, head loaded: its first read is not stolen, its second is", PATTERN,
                3, 0, window, confirm, steal, randomReads(new SplittableRandom(5), 3, 4 * KIB, 1L << 30,
                        List.of(6, 0, 0))));
        List<Read> writeBack = new ArrayList<>();
        for (Read read : randomReads(new SplittableRandom(6), 8, 4 * KIB, 1L << 30, List.of(6, 0, 0))) {
            int phase = writeBack.size() / 2;
            List<Long> dirty = List.of(List.of(0L, 0L, 0L), List.of(0L, 0L, 8 * KIB), List.of(0L, 4 * KIB, 8 * KIB),
                    List.of(0L, 4 * KIB, 0L)).get(phase);
            writeBack.add(new Read(read.offsetBytes(), read.lengthBytes(), read.queued(), dirty));
        }
        cases.add(routedCase("random reader, head loaded: a replica with dirty write-back does not steal (tail, then"
                + " middle and tail, then middle)", PATTERN, 3, 0, window, confirm, steal, writeBack));
        List<Read> turningRandom = new ArrayList<>(sequential(0, 64 * KIB, 4, List.of(5, 0, 0)));
        turningRandom.addAll(randomReads(new SplittableRandom(7), 4, 64 * KIB, 1L << 32, List.of(5, 0, 0)));
        cases.add(routedCase("sequential turning random, head loaded: stolen from the second jump on", PATTERN, 3, 0,
                window, confirm, steal, turningRandom));
        cases.add(routedCase("sequential reader, loaded below the stealing bound: no steal", PATTERN, 3, 0, window,
                confirm, steal, sequential(0, 128 * KIB, 6, List.of(0, 1, 0))));
        List<Read> turning = new ArrayList<>(sequential(0, 64 * KIB, 5, List.of(0, 0, 0)));
        turning.addAll(randomReads(new SplittableRandom(4), 4, 64 * KIB, 1L << 32, List.of(0, 0, 0)));
        turning.addAll(sequential(1L << 31, 64 * KIB, 5, List.of(0, 0, 0)));
        turning.add(new Read((1L << 31) + 5 * 64 * KIB + window, 64 * KIB, List.of(0, 0, 0)));
        turning.add(new Read((1L << 31) + 6 * 64 * KIB + window + window + 1, 64 * KIB, List.of(0, 0, 0)));
        cases.add(routedCase("sequential, random, sequential again, window edges", PATTERN, 3, 0, window, confirm,
                steal, turning));
        cases.add(routedCase("unreplicated file", PATTERN, 1, 0, window, confirm, steal,
                sequential(0, 128 * KIB, 4, List.of(7))));
        cases.add(routedCase("two replicas: sequential reads to the tail", PATTERN, 2, 0, window, confirm, steal,
                sequential(0, 128 * KIB, 4, List.of(0, 0))));
        for (int ordinal = 0; ordinal < 4; ordinal++) {
            cases.add(routedCase("round-robin binding, stream " + ordinal + ", head loaded: no stealing",
                    ROUND_ROBIN, 3, ordinal, window, confirm, steal, randomReads(new SplittableRandom(10 + ordinal), 4,
                            4 * KIB, 1L << 30, List.of(9, 0, 0))));
        }
        int seeded = 0;
        for (String routing : List.of(PATTERN, ROUND_ROBIN)) {
            for (int replicas = 1; replicas <= 4; replicas++) {
                for (long seed = 100; seed < 103; seed++) {
                    SplittableRandom random = new SplittableRandom(seed * 31 + replicas);
                    long caseWindow = random.nextInt(3) * 32 * KIB;
                    int caseConfirm = 1 + random.nextInt(3);
                    int caseSteal = 1 + random.nextInt(4);
                    cases.add(routedCase("seeded mix " + (++seeded) + " (seed " + seed + ")", routing, replicas,
                            random.nextInt(5), caseWindow, caseConfirm, caseSteal, mixed(random, replicas, 40)));
                }
            }
        }
        // Appended last, so that the cases above keep their place in the checked-in file.
        cases.add(routedCase("pattern without stealing, head loaded: no steal", PATTERN_NO_STEALING, 3, 0, window,
                confirm, steal, loadedHead));
        out.append(String.join(",\n", cases)).append("\n  ]\n}\n");
        return out.toString();
    }

    private static String routedCase(String name, String routing, int replicas, int streamOrdinal, long windowBytes,
            int confirmRequests, int stealQueuedReadsMin, List<Read> reads) {
        ReplicaRouter router = ROUND_ROBIN.equals(routing) ? new RoundRobinBindingRouter() : new PatternAwareRouter();
        ReadStealing stealing = PATTERN.equals(routing) ? new ReadStealing(stealQueuedReadsMin) : null;
        StreamClassifier classifier = StreamClassifier.start(windowBytes, confirmRequests);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "    {\"name\": \"%s\", \"routing\": \"%s\", \"replicas\": %d,"
                + " \"streamOrdinal\": %d, \"windowBytes\": %d, \"confirmRequests\": %d, \"stealQueuedReadsMin\": %d,"
                + " \"reads\": [", name, routing, replicas, streamOrdinal, windowBytes, confirmRequests,
                stealQueuedReadsMin));
        List<String> lines = new ArrayList<>();
        for (Read read : reads) {
            if (read.queued().size() != replicas) {
                throw new IllegalArgumentException(name + ": a read reports " + read.queued().size() + " loads for "
                        + replicas + " replicas");
            }
            classifier = classifier.observe(read.offsetBytes(), read.lengthBytes());
            ReadContext context = new ReadContext(streamOrdinal, classifier.pattern(), read.queued());
            int routed = router.readReplica(context);
            int replica = stealing == null ? routed
                    : stealing.readReplica(router, context, classifier, read.dirtyBytes());
            lines.add(String.format(Locale.ROOT, "\n      {\"offsetBytes\": %d, \"lengthBytes\": %d, \"queued\": %s,"
                    + " \"dirtyBytes\": %s, \"pattern\": \"%s\", \"stealable\": %b, \"routedReplica\": %d,"
                    + " \"replica\": %d}", read.offsetBytes(), read.lengthBytes(),
                    read.queued().toString().replace(" ", ""), read.dirtyBytes().toString().replace(" ", ""),
                    classifier.pattern(), ReadStealing.mayStealReadOf(classifier), routed, replica));
        }
        return out.append(String.join(",", lines)).append("]}").toString();
    }

    private static List<Read> sequential(long startBytes, long lengthBytes, int count, List<Integer> queued) {
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            reads.add(new Read(startBytes + i * lengthBytes, lengthBytes, queued));
        }
        return reads;
    }

    private static List<Read> randomReads(SplittableRandom random, int count, long lengthBytes, long spanBytes,
            List<Integer> queued) {
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            reads.add(new Read(random.nextLong(spanBytes / lengthBytes) * lengthBytes, lengthBytes, queued));
        }
        return reads;
    }

    /**
     * Runs of sequential and random reads, with reordering inside the window, loads from 0 to 6 and now and then a
     * replica with write-back to flush.
     */
    private static List<Read> mixed(SplittableRandom random, int replicas, int count) {
        List<Read> reads = new ArrayList<>();
        long next = 0;
        for (int i = 0; i < count; i++) {
            long length = (1 + random.nextInt(32)) * 4 * KIB;
            long offset = switch (random.nextInt(4)) {
                case 0 -> random.nextLong(1L << 34);
                case 1 -> Math.max(0, next - random.nextInt(96) * KIB);
                default -> next + random.nextInt(3) * 16 * KIB;
            };
            List<Integer> queued = new ArrayList<>();
            List<Long> dirty = new ArrayList<>();
            for (int replica = 0; replica < replicas; replica++) {
                queued.add(random.nextInt(3) == 0 ? 0 : random.nextInt(7));
                dirty.add(random.nextInt(4) == 0 ? (1 + random.nextInt(64)) * 4 * KIB : 0L);
            }
            reads.add(new Read(offset, length, queued, dirty));
            next = offset + length;
        }
        return reads;
    }
}
