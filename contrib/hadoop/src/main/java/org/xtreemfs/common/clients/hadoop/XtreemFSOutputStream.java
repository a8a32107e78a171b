package org.xtreemfs.common.clients.hadoop;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.xtreemfs.client.FileHandle;

/**
 * An output stream over a file opened for writing, from {@code startOffset} on (0, or the size for append). Writes
 * collect in a buffer of the configured size (when buffering is on) and go to the OSDs when it is full.
 * {@link #hflush} and {@link #hsync} both send the buffer and call the client's {@link FileHandle#fsync} (OSD fsync,
 * then the new size to the MRC): the library has no weaker "visible but not durable" step, so hflush is as strong
 * as hsync. {@link #close} sends the buffer and closes the file, which reports its size to the MRC.
 */
final class XtreemFSOutputStream extends OutputStream implements Syncable, StreamCapabilities {
    private final FileHandle file;
    private final String pathForMessages;
    private final byte[] buffer;
    private int buffered;
    private long position;
    private boolean closed;

    XtreemFSOutputStream(FileHandle file, String pathForMessages, long startOffset, boolean bufferWrites,
            int bufferBytes) {
        this.file = file;
        this.pathForMessages = pathForMessages;
        this.position = startOffset;
        this.buffer = bufferWrites ? new byte[bufferBytes] : null;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        if (buffer != null && buffered < buffer.length && !closed) {
            buffer[buffered++] = (byte) b; // byte-by-byte writers (DataOutput) need no array per byte
            return;
        }
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] data, int offset, int length) throws IOException {
        checkOpen();
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length + " outside a buffer of "
                    + data.length + " bytes");
        }
        if (buffer == null || length >= buffer.length) {
            sendBuffer();
            send(data, offset, length);
            return;
        }
        if (length > buffer.length - buffered) {
            sendBuffer();
        }
        System.arraycopy(data, offset, buffer, buffered, length);
        buffered += length;
    }

    private void sendBuffer() throws IOException {
        if (buffered > 0) {
            int length = buffered;
            buffered = 0;
            send(buffer, 0, length);
        }
    }

    private void send(byte[] data, int offset, int length) throws IOException {
        if (length > 0) {
            file.write(position, data, offset, length);
            position += length;
        }
    }

    /** Sends the buffer to the OSDs (not made durable, and the size is not reported until hflush or close). */
    @Override
    public synchronized void flush() throws IOException {
        if (!closed) {
            sendBuffer();
        }
    }

    @Override
    public synchronized void hflush() throws IOException {
        hsync();
    }

    @Override
    public synchronized void hsync() throws IOException {
        checkOpen();
        sendBuffer();
        file.fsync();
    }

    @Override
    public boolean hasCapability(String capability) {
        return StreamCapabilities.HFLUSH.equalsIgnoreCase(capability)
                || StreamCapabilities.HSYNC.equalsIgnoreCase(capability);
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            sendBuffer();
        } finally {
            file.close();
        }
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + pathForMessages);
        }
    }
}
