package org.xtreemfs.osd.ops;

import com.google.protobuf.AbstractParser;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.xtreemfs.interfaces.common.FileCredentials;

/**
 * Parses a file request whose field 1 is its {@link FileCredentials}, handing every request that carries the same
 * credentials bytes the same parsed instance. A client sends its open file's XCap and XLoc unchanged with every
 * object request, and parsing them (a dozen nested messages and strings) was about 4 % of the OSD's CPU under 4 KiB
 * random reads (async-profiler, issue 10); comparing the bytes with a cached copy costs a fraction of that. The
 * shared instance also lets the preprocessing stage recognise credentials it has checked before
 * ({@code PreprocessingStage}: its memo is keyed by the credentials, whose hash a message memoizes).
 *
 * <p>The result equals what {@code plain} parses: the cached credentials were parsed from the same bytes, and the
 * other fields (and a repeated field 1, which protobuf merges into the first) are parsed by the message's own
 * builder after them. A message that does not start with field 1 is parsed by {@code plain} as a whole.
 *
 * <p>Bounded: at most {@link #CACHED_CREDENTIALS_MAX} credentials; past that the cache starts empty again (an
 * XCap changes on renewal, every few minutes per open file, so entries turn over slowly).
 */
final class SharedCredentialsParser<T extends MessageLite> extends AbstractParser<T> {
    static final int CACHED_CREDENTIALS_MAX = 4096;
    /** Field 1, length-delimited: one byte on the wire. */
    private static final int CREDENTIALS_TAG = (1 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED;

    /** The rest of a message after its credentials: a builder holding them, merged with the remaining input. */
    @FunctionalInterface
    interface RestParser<T> {
        T parse(FileCredentials credentials, CodedInputStream rest, ExtensionRegistryLite registry) throws IOException;
    }

    private final Parser<T> plain;
    private final RestParser<T> rest;
    private final ConcurrentMap<ByteString, FileCredentials> credentialsByBytes = new ConcurrentHashMap<>();

    SharedCredentialsParser(Parser<T> plain, RestParser<T> rest) {
        this.plain = plain;
        this.rest = rest;
    }

    @Override
    public T parseFrom(ByteBuffer data, ExtensionRegistryLite registry) throws InvalidProtocolBufferException {
        if (!data.hasRemaining() || (data.get(data.position()) & 0xff) != CREDENTIALS_TAG) {
            return plain.parseFrom(data, registry);
        }
        CodedInputStream input = CodedInputStream.newInstance(data);
        try {
            input.readTag();
            FileCredentials credentials = credentials(input.readBytes());
            return rest.parse(credentials, input, registry);
        } catch (InvalidProtocolBufferException e) {
            throw e;
        } catch (IOException e) {
            throw new InvalidProtocolBufferException(e);
        }
    }

    @Override
    public T parsePartialFrom(CodedInputStream input, ExtensionRegistryLite registry)
            throws InvalidProtocolBufferException {
        return plain.parsePartialFrom(input, registry);
    }

    /** How many credentials the cache holds now. */
    int cachedCredentials() {
        return credentialsByBytes.size();
    }

    private FileCredentials credentials(ByteString bytes) throws InvalidProtocolBufferException {
        FileCredentials known = credentialsByBytes.get(bytes);
        if (known != null) {
            return known;
        }
        FileCredentials parsed = FileCredentials.parseFrom(bytes);
        if (credentialsByBytes.size() >= CACHED_CREDENTIALS_MAX) {
            credentialsByBytes.clear();
        }
        FileCredentials raced = credentialsByBytes.putIfAbsent(bytes, parsed);
        return raced != null ? raced : parsed;
    }
}
