package org.xtreemfs.osd.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.ReadRequest;
import org.xtreemfs.interfaces.osd.WriteRequest;

class SharedCredentialsParserTest {
    private final SharedCredentialsParser<ReadRequest> reads = new SharedCredentialsParser<>(ReadRequest.parser(),
            (credentials, rest, registry) -> ReadRequest.newBuilder().setCredentials(credentials)
                    .mergeFrom(rest, registry).build());

    private static FileCredentials credentials(String fileId) {
        return FileCredentials.newBuilder().setXcap(XCap.newBuilder().setFileId(fileId).setVolumeId("vol")
                .setExpiresMs(123).setSignature(ByteString.copyFromUtf8("sig")))
                .setXlocs(XLocSet.newBuilder().setVersion(2).addReplicas(Replica.newBuilder().addOsdUuids("osd-1")
                        .setStripingPolicy(StripingPolicy.newBuilder().setObjectSizeBytes(1 << 20).setWidth(1))))
                .build();
    }

    private static ReadRequest read(FileCredentials credentials, long objectNumber) {
        return ReadRequest.newBuilder().setCredentials(credentials).setFileId(credentials.getXcap().getFileId())
                .setObjectNumber(objectNumber).setOffset(4096).setLength(4096).build();
    }

    /** As the transport hands it over: a direct buffer, as Netty's pooled one. */
    private static ByteBuffer direct(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length + 3);
        buffer.put(new byte[] {7, 7, 7}).put(bytes).flip().position(3);
        return buffer;
    }

    @Test
    void requestsCarryingTheSameCredentialsBytesShareOneParsedInstanceAndEqualThePlainParse() throws Exception {
        // Proves the OSD parses an open file's XCap and XLoc once, not per request, and loses nothing doing so.
        ReadRequest first = read(credentials("vol:1"), 7);
        ReadRequest second = read(credentials("vol:1"), 9);
        ReadRequest other = read(credentials("vol:2"), 7);
        ReadRequest parsedFirst = reads.parseFrom(direct(first.toByteArray()));
        ReadRequest parsedSecond = reads.parseFrom(ByteBuffer.wrap(second.toByteArray()));
        ReadRequest parsedOther = reads.parseFrom(direct(other.toByteArray()));
        assertThat(parsedFirst).isEqualTo(first);
        assertThat(parsedSecond).isEqualTo(second);
        assertThat(parsedOther).isEqualTo(other);
        assertThat(parsedSecond.getCredentials()).isSameAs(parsedFirst.getCredentials());
        assertThat(parsedOther.getCredentials()).isNotSameAs(parsedFirst.getCredentials());
    }

    @Test
    void messagesInAnotherFieldOrderOrWithARepeatedCredentialsFieldParseAsProtobufSays() throws Exception {
        // Proves the shortcut changes no result: field 1 later in the message, or twice (protobuf merges the second
        // into the first), and unknown fields kept; a write's fields after its credentials too.
        FileCredentials credentials = credentials("vol:1");
        byte[] fileIdFirst = concat(ReadRequest.newBuilder().setFileId("vol:1").setLength(5).build().toByteArray(),
                ReadRequest.newBuilder().setCredentials(credentials).build().toByteArray());
        assertThat(reads.parseFrom(direct(fileIdFirst))).isEqualTo(ReadRequest.parseFrom(fileIdFirst));
        FileCredentials newerXLoc = credentials.toBuilder().setXlocs(credentials.getXlocs().toBuilder().setVersion(3))
                .build();
        byte[] twice = concat(read(credentials, 1).toByteArray(),
                ReadRequest.newBuilder().setCredentials(newerXLoc).build().toByteArray(),
                new byte[] {(byte) 0xf8, 0x01, 0x05}); // field 31 (unknown), varint 5
        ReadRequest parsedTwice = reads.parseFrom(direct(twice));
        assertThat(parsedTwice).isEqualTo(ReadRequest.parseFrom(twice));
        assertThat(parsedTwice.getCredentials().getXlocs().getVersion()).isEqualTo(3);
        assertThat(parsedTwice.getUnknownFields().asMap()).containsKey(31);
        SharedCredentialsParser<WriteRequest> writes = new SharedCredentialsParser<>(WriteRequest.parser(),
                (creds, rest, registry) -> WriteRequest.newBuilder().setCredentials(creds).mergeFrom(rest, registry)
                        .build());
        WriteRequest write = WriteRequest.newBuilder().setCredentials(credentials).setFileId("vol:1")
                .setObjectNumber(3).setOffset(8).setSync(true).setForwarded(true).build();
        assertThat(writes.parseFrom(direct(write.toByteArray()))).isEqualTo(write);
    }

    @Test
    void malformedCredentialsAreRefusedAsTheyWereBefore() {
        // Proves a request whose credentials do not parse still fails to parse (INVALID_ARGS for the caller).
        byte[] broken = {0x0a, 0x03, 0x0a, 0x05, 0x01}; // field 1 holding a field 1 that claims 5 bytes of 1
        assertThatThrownBy(() -> ReadRequest.parseFrom(broken)).isInstanceOf(InvalidProtocolBufferException.class);
        assertThatThrownBy(() -> reads.parseFrom(direct(broken))).isInstanceOf(InvalidProtocolBufferException.class);
    }

    @Test
    void theCacheIsBounded() throws Exception {
        // Proves memory stays bounded however many files are read: past the bound the cache starts afresh.
        for (int i = 0; i <= SharedCredentialsParser.CACHED_CREDENTIALS_MAX + 10; i++) {
            reads.parseFrom(ByteBuffer.wrap(read(credentials("vol:" + i), 0).toByteArray()));
        }
        assertThat(reads.cachedCredentials()).isLessThanOrEqualTo(SharedCredentialsParser.CACHED_CREDENTIALS_MAX);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
