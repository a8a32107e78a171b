package org.xtreemfs.foundation.rpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.xtreemfs.interfaces.rpc.MessageType;
import org.xtreemfs.interfaces.rpc.RequestHeader;
import org.xtreemfs.interfaces.rpc.RpcHeader;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/**
 * One received request, answered exactly once. The request's data segment stays valid until the call is
 * answered; a handler that needs the bytes later copies them first.
 */
public final class RpcCall {
    private final RpcRecord record;
    private final Channel channel;
    private final ReplyWriter replies;
    private final Runnable onAnswered;
    private final long receivedNanos;
    /** Set once, by the answer that is sent (see {@link #markAnswered}). */
    private volatile boolean answered;
    /** A field and a VarHandle rather than an AtomicBoolean: one object less per request. */
    private static final VarHandle ANSWERED;

    static {
        try {
            ANSWERED = MethodHandles.lookup().findVarHandle(RpcCall.class, "answered", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    RpcCall(RpcRecord record, Channel channel, ReplyWriter replies, Runnable onAnswered, long receivedNanos) {
        this.record = record;
        this.channel = channel;
        this.replies = replies;
        this.onAnswered = onAnswered;
        this.receivedNanos = receivedNanos;
    }

    public RequestHeader requestHeader() {
        return record.header().getRequestHeader();
    }

    public UserCredentials userCredentials() {
        return requestHeader().getUserCredentials();
    }

    /**
     * The certificate the caller presented over TLS (verified by the server's TLS against its CA), if the port
     * speaks TLS and the caller presented one.
     */
    public Optional<X509Certificate> peerCertificate() {
        SslHandler tls = channel.pipeline().get(SslHandler.class);
        if (tls == null) {
            return Optional.empty();
        }
        try {
            Certificate[] chain = tls.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate certificate
                    ? Optional.of(certificate) : Optional.empty();
        } catch (SSLPeerUnverifiedException none) {
            return Optional.empty();
        }
    }

    public int procedureId() {
        return requestHeader().getProcedureId();
    }

    /** Monotonic time ({@link System#nanoTime()}) at which the request was decoded. */
    public long receivedNanos() {
        return receivedNanos;
    }

    /** The caller's deadline in milliseconds from {@link #receivedNanos()}; 0 when it sent none. */
    public long timeoutMs() {
        return requestHeader().getTimeoutMs();
    }

    public String remoteAddress() {
        return String.valueOf(channel.remoteAddress());
    }

    /** Parses the request message; a message that does not parse is the caller's error (INVALID_ARGS). */
    public <T> T request(Parser<T> parser) throws RpcException {
        try {
            return ProtobufBytes.parse(parser, record.message());
        } catch (InvalidProtocolBufferException e) {
            throw RpcException.invalidArguments("request message of procedure " + procedureId()
                    + " does not parse: " + e.getMessage());
        }
    }

    /** The raw data segment (read-only view, valid until the call is answered). */
    public ByteBuf data() {
        return record.data().asReadOnly();
    }

    public boolean isAnswered() {
        return answered;
    }

    /** True for the one answer that may be sent; false when the call was answered before. */
    private boolean markAnswered() {
        return ANSWERED.compareAndSet(this, false, true);
    }

    public void respond(MessageLite response) {
        respond(response, (ByteBuf) null);
    }

    /** Sends the response; {@code data} (may be null) is released by the transport. */
    public void respond(MessageLite response, ByteBuf data) {
        if (!markAnswered()) {
            RpcRecord.releaseQuietly(data);
            throw new IllegalStateException("call " + record.header().getCallId() + " answered twice");
        }
        send(responseHeader().build(), response, data);
    }

    /**
     * A response whose data segment of at most {@code dataBytesMax} bytes the caller writes straight into the reply's
     * buffer ({@link PreparedResponse#dataTarget}), then {@link PreparedResponse#send}s. For a small object read
     * the file's bytes so land where the socket write takes them from: no buffer of their own and no copy behind the
     * message (one pooled allocation and release and a 4 KiB copy less per read). The message is serialised now, so
     * what it reports is as of this call. Nothing is sent and the call stays unanswered until {@code send}; closing
     * the prepared response without it (the read failed, or the caller answers otherwise) frees the buffer.
     */
    public PreparedResponse prepareResponse(MessageLite response, int dataBytesMax) {
        return new PreparedResponse(RecordEncoder.encodeWithDataRoom(channel.alloc(), responseHeader().build(),
                response, dataBytesMax), dataBytesMax);
    }

    /** See {@link #prepareResponse}: use from one thread; {@link #close} after {@link #send} does nothing. */
    public final class PreparedResponse implements AutoCloseable {
        private ByteBuf encoded;
        private final int dataBytesMax;

        private PreparedResponse(ByteBuf encoded, int dataBytesMax) {
            this.encoded = encoded;
            this.dataBytesMax = dataBytesMax;
        }

        /** Where the data segment goes: {@code dataBytesMax} bytes from position 0, valid until send or close. */
        public ByteBuffer dataTarget() {
            if (encoded == null) {
                throw new IllegalStateException("response of call " + record.header().getCallId() + " already sent");
            }
            return encoded.nioBuffer(RecordEncoder.dataStart(encoded), dataBytesMax);
        }

        /** Answers the call with the first {@code dataBytes} bytes written to {@link #dataTarget} as its data. */
        public void send(int dataBytes) {
            if (encoded == null || dataBytes < 0 || dataBytes > dataBytesMax) {
                throw new IllegalStateException("response of call " + record.header().getCallId()
                        + (encoded == null ? " already sent" : " has room for " + dataBytesMax + " data bytes, not "
                        + dataBytes));
            }
            ByteBuf reply = encoded;
            encoded = null;
            if (!markAnswered()) {
                reply.release();
                throw new IllegalStateException("call " + record.header().getCallId() + " answered twice");
            }
            RecordEncoder.dataWritten(reply, dataBytes);
            try {
                record.release();
                replies.send(reply);
            } finally {
                onAnswered.run();
            }
        }

        @Override
        public void close() {
            if (encoded != null) {
                encoded.release();
                encoded = null;
            }
        }
    }

    /**
     * Sends the response with a data segment sent from a file (sendfile) on a plain connection; over TLS, which
     * cannot encrypt from a file, the segment is read into a buffer first. {@code data} is released by the transport
     * (see {@link FileSegment} for what its owner keeps until then).
     */
    public void respond(MessageLite response, FileSegment data) {
        if (!markAnswered()) {
            data.release();
            throw new IllegalStateException("call " + record.header().getCallId() + " answered twice");
        }
        RpcHeader header = responseHeader().build();
        if (channel.pipeline().get(SslHandler.class) == null) {
            try {
                record.release();
                int dataLength = Math.toIntExact(data.count());
                replies.send(RecordEncoder.encodePrefix(channel.alloc(), header, response, dataLength, 0), data);
            } catch (RuntimeException e) {
                RpcRecord.releaseQuietly(data);
                throw e;
            } finally {
                onAnswered.run();
            }
            return;
        }
        ByteBuf copy;
        try {
            copy = data.copyIntoBuffer(channel.alloc());
        } catch (IOException e) {
            send(header.toBuilder().setErrorResponse(RpcException.internal("cannot read the reply's data: "
                    + e.getMessage()).toResponse()).build(), null, null);
            return;
        } finally {
            data.release();
        }
        send(header, response, copy);
    }

    public void fail(RpcException error) {
        if (!markAnswered()) {
            return;
        }
        send(responseHeader().setErrorResponse(error.toResponse()).build(), null, null);
    }

    private RpcHeader.Builder responseHeader() {
        return RpcHeader.newBuilder().setCallId(record.header().getCallId()).setMessageType(MessageType.RESPONSE);
    }

    private void send(RpcHeader header, MessageLite response, ByteBuf data) {
        try {
            record.release();
            if (!replies.sendInBatch(header, response, data)) {
                replies.send(RecordEncoder.encode(channel.alloc(), header, response, data));
            }
        } finally {
            onAnswered.run();
        }
    }
}
