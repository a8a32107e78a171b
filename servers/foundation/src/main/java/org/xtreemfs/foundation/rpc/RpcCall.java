package org.xtreemfs.foundation.rpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import java.util.concurrent.atomic.AtomicBoolean;
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
    private final AtomicBoolean answered = new AtomicBoolean();

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
        return answered.get();
    }

    public void respond(MessageLite response) {
        respond(response, (ByteBuf) null);
    }

    /** Sends the response; {@code data} (may be null) is released by the transport. */
    public void respond(MessageLite response, ByteBuf data) {
        if (!answered.compareAndSet(false, true)) {
            RpcRecord.releaseQuietly(data);
            throw new IllegalStateException("call " + record.header().getCallId() + " answered twice");
        }
        RpcHeader header = RpcHeader.newBuilder()
                .setCallId(record.header().getCallId())
                .setMessageType(MessageType.RESPONSE)
                .build();
        send(header, response, data);
    }

    /**
     * Sends the response with a data segment sent from a file (sendfile) on a plain connection; over TLS, which
     * cannot encrypt from a file, the segment is read into a buffer first. {@code data} is released by the transport
     * (see {@link FileSegment} for what its owner keeps until then).
     */
    public void respond(MessageLite response, FileSegment data) {
        if (!answered.compareAndSet(false, true)) {
            data.release();
            throw new IllegalStateException("call " + record.header().getCallId() + " answered twice");
        }
        RpcHeader header = RpcHeader.newBuilder()
                .setCallId(record.header().getCallId())
                .setMessageType(MessageType.RESPONSE)
                .build();
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
        if (!answered.compareAndSet(false, true)) {
            return;
        }
        RpcHeader header = RpcHeader.newBuilder()
                .setCallId(record.header().getCallId())
                .setMessageType(MessageType.RESPONSE)
                .setErrorResponse(error.toResponse())
                .build();
        send(header, null, null);
    }

    private void send(RpcHeader header, MessageLite response, ByteBuf data) {
        try {
            record.release();
            ByteBuf encoded = RecordEncoder.encode(channel.alloc(), header, response, data);
            replies.send(encoded);
        } finally {
            onAnswered.run();
        }
    }
}
