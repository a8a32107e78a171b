package org.xtreemfs.common.clients.hadoop;

import java.io.EOFException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.xtreemfs.client.FileHandle;

/**
 * A seekable input stream over an open {@link FileHandle}. Sequential reads go through a buffer of the configured
 * size; once two buffer fills follow each other, the next one is read ahead in the background (one at a time), so
 * a scan overlaps the network with the caller's processing. Positioned reads ({@code read(position, ...)},
 * {@code readFully}) go straight to the file and leave the stream's position and buffer alone. The file's size is
 * the one known when it was opened (the client library's rule). Not thread-safe except for positioned reads.
 */
final class XtreemFSInputStream extends FSInputStream implements CanUnbuffer, StreamCapabilities {
    private final FileHandle file;
    private final String pathForMessages;
    private final FileSystem.Statistics statistics;
    private final Executor readAheadExecutor;
    private final int bufferBytes;
    private final boolean buffered;
    private final long sizeBytes;

    private byte[] buffer;
    /** File offset of buffer[0]; the buffer holds [bufferStart, bufferStart + bufferLength). */
    private long bufferStart;
    private int bufferLength;
    private long position;
    /** The read-ahead in flight: its start offset and its result, or null. */
    private long readAheadStart = -1;
    private CompletableFuture<byte[]> readAhead;
    private boolean closed;

    XtreemFSInputStream(FileHandle file, String pathForMessages, FileSystem.Statistics statistics,
            Executor readAheadExecutor, boolean buffered, int bufferBytes) {
        this.file = file;
        this.pathForMessages = pathForMessages;
        this.statistics = statistics;
        this.readAheadExecutor = readAheadExecutor;
        this.buffered = buffered;
        this.bufferBytes = bufferBytes;
        this.sizeBytes = file.sizeBytes();
    }

    @Override
    public synchronized void seek(long target) throws IOException {
        checkOpen();
        if (target < 0) {
            throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + " " + target + " in " + pathForMessages);
        }
        if (target > sizeBytes) {
            throw new EOFException(FSExceptionMessages.CANNOT_SEEK_PAST_EOF + ": " + target + " in "
                    + pathForMessages + " of " + sizeBytes + " bytes");
        }
        position = target;
    }

    @Override
    public synchronized long getPos() {
        // Answers after close too, as HDFS's streams do (unbuffer on a closed stream asks for it).
        return position;
    }

    /** There is one replica: no other source to try. */
    @Override
    public boolean seekToNewSource(long targetPos) {
        return false;
    }

    @Override
    public synchronized int available() throws IOException {
        checkOpen();
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, sizeBytes - position));
    }

    @Override
    public synchronized int read() throws IOException {
        checkOpen();
        // From the buffer without allocating: line readers and DataInput call this byte by byte.
        if (buffer != null && position >= bufferStart && position < bufferStart + bufferLength) {
            return buffer[(int) (position++ - bufferStart)] & 0xff;
        }
        byte[] one = new byte[1];
        int read = read(one, 0, 1);
        return read <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] target, int offset, int length) throws IOException {
        checkOpen();
        validatePositionedReadArgs(position, target, offset, length);
        if (offset < 0) {
            throw new IndexOutOfBoundsException("negative buffer offset " + offset + " reading " + pathForMessages);
        }
        if (length == 0) {
            return 0;
        }
        if (position >= sizeBytes) {
            return -1;
        }
        int read;
        if (!buffered || length >= bufferBytes) {
            // Large reads bypass the buffer: one copy fewer, and the library splits them per object anyway.
            read = file.read(position, target, offset, length);
            countRead(read);
        } else {
            if (position < bufferStart || position >= bufferStart + bufferLength) {
                fill(position);
            }
            read = (int) Math.min(length, bufferStart + bufferLength - position);
            System.arraycopy(buffer, (int) (position - bufferStart), target, offset, read);
        }
        position += read;
        return read;
    }

    /** Loads the buffer at {@code start}: from the read-ahead if it is that range, then starts the next one. */
    private void fill(long start) throws IOException {
        boolean sequential = buffer != null && start == bufferStart + bufferLength;
        byte[] data = null;
        if (readAhead != null && readAheadStart == start) {
            data = awaitReadAhead();
        }
        dropReadAhead();
        if (data == null) {
            data = file.read(start, bufferBytes);
            countRead(data.length);
        }
        buffer = data;
        bufferStart = start;
        bufferLength = data.length;
        long next = start + data.length;
        if (sequential && next < sizeBytes) {
            readAheadStart = next;
            readAhead = CompletableFuture.supplyAsync(() -> {
                try {
                    byte[] ahead = file.read(next, bufferBytes);
                    countRead(ahead.length);
                    return ahead;
                } catch (IOException e) {
                    throw new CompletionException(e);
                }
            }, readAheadExecutor);
        }
    }

    /** The read-ahead's data, or null when it failed (the caller then reads again and reports that failure). */
    private byte[] awaitReadAhead() {
        try {
            return readAhead.join();
        } catch (CompletionException | java.util.concurrent.CancellationException failed) {
            return null;
        }
    }

    private void dropReadAhead() {
        if (readAhead != null) {
            readAhead.cancel(false);
            readAhead = null;
            readAheadStart = -1;
        }
    }

    private void countRead(int bytes) {
        if (statistics != null && bytes > 0) {
            statistics.incrementBytesRead(bytes);
        }
    }

    /** Reads at {@code position} without moving the stream; -1 at or past the end. Thread-safe. */
    @Override
    public int read(long readPosition, byte[] target, int offset, int length) throws IOException {
        validatePositionedReadArgs(readPosition, target, offset, length);
        if (offset < 0) {
            throw new IndexOutOfBoundsException("negative buffer offset " + offset + " reading " + pathForMessages);
        }
        synchronized (this) {
            checkOpen();
        }
        if (length == 0) {
            return 0;
        }
        if (readPosition >= sizeBytes) {
            return -1;
        }
        int read = file.read(readPosition, target, offset, length);
        countRead(read);
        return read == 0 ? -1 : read;
    }

    @Override
    public synchronized void unbuffer() {
        dropReadAhead();
        buffer = null;
        bufferLength = 0;
    }

    @Override
    public boolean hasCapability(String capability) {
        return StreamCapabilities.UNBUFFER.equalsIgnoreCase(capability);
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        unbuffer();
        file.close();
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + pathForMessages);
        }
    }
}
