package org.xtreemfs.integration;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.xtreemfs.client.FileHandle;

/**
 * A write load for kill tests: a thread that writes pieces 0, 1, ... of a file in order, each at its own offset,
 * counting the pieces acknowledged so far, and keeping the first failure instead of throwing it.
 */
final class PieceWriter {
    private final AtomicInteger acknowledged = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicBoolean done = new AtomicBoolean();
    private final Thread thread;

    private PieceWriter(FileHandle file, int pieces, int pieceBytes, IntFunction<byte[]> piece, String name) {
        thread = new Thread(() -> {
            try {
                for (int number = 0; number < pieces; number++) {
                    file.write((long) number * pieceBytes, piece.apply(number));
                    acknowledged.incrementAndGet();
                }
            } catch (Throwable error) {
                failure.set(error);
            } finally {
                done.set(true);
            }
        }, name);
    }

    /** Starts writing {@code pieces} pieces of {@code pieceBytes} (piece n is {@code piece.apply(n)}) at n × pieceBytes. */
    static PieceWriter start(FileHandle file, int pieces, int pieceBytes, IntFunction<byte[]> piece, String name) {
        PieceWriter writer = new PieceWriter(file, pieces, pieceBytes, piece, name);
        writer.thread.start();
        return writer;
    }

    int acknowledged() {
        return acknowledged.get();
    }

    boolean done() {
        return done.get();
    }

    Throwable failure() {
        return failure.get();
    }

    /** Waits up to {@code timeoutMs} for the writer to end; true when it did. */
    boolean join(long timeoutMs) throws InterruptedException {
        thread.join(timeoutMs);
        return !thread.isAlive();
    }
}
