package org.xtreemfs.mrc.ops;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.QosShare;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.XCapRequest;
import org.xtreemfs.mrc.metadata.DeletedFile;
import org.xtreemfs.mrc.metadata.InodeRecord;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * How a changing operation's apply result is kept as its recorded outcome
 * ({@link org.xtreemfs.mrc.metadata.OutcomeJournal}) and read back, so a repeated request is answered by
 * the same {@code answer} step from the same result (capabilities in it are issued fresh). Operations that
 * change nothing have none and are simply run again.
 *
 * @param <T> the apply step's result type
 */
public interface ResultCodec<T> {
    byte[] encode(T result);

    T decode(byte[] bytes);

    /** A result that is itself a protobuf message. */
    static <M extends MessageLite> ResultCodec<M> message(Parser<M> parser) {
        return new ResultCodec<>() {
            @Override
            public byte[] encode(M result) {
                return result.toByteArray();
            }

            @Override
            public M decode(byte[] bytes) {
                try {
                    return parser.parseFrom(bytes);
                } catch (InvalidProtocolBufferException e) {
                    throw new IllegalStateException("corrupt recorded outcome: " + e.getMessage(), e);
                }
            }
        };
    }

    /** Open's result: the file's record, the access mode, whether credentials are issued, the share. */
    ResultCodec<OpenResult> OPEN = of((result, out) -> {
        out.writeUTF(result.volumeId());
        writeBytes(out, result.record().encode());
        out.writeInt(result.accessMode().getNumber());
        out.writeBoolean(result.credentialsNeeded());
        writeShare(out, result.share());
    }, in -> new OpenResult(in.readUTF(), InodeRecord.decode(readBytes(in)), AccessMode.forNumber(in.readInt()),
            in.readBoolean(), readShare(in), Optional.empty()));

    /**
     * Unlink's and rename's result: the file whose last link went away, if any (the answer carries nothing of it; the
     * record format once also held a share, written empty now, so outcomes recorded before an upgrade still read).
     */
    ResultCodec<Optional<DeletedFile>> DELETED = of((result, out) -> {
        out.writeBoolean(result.isPresent());
        if (result.isPresent()) {
            DeletedFile file = result.get();
            out.writeUTF(file.volumeId());
            out.writeLong(file.inode());
            writeBytes(out, file.xlocs().toByteArray());
            out.writeInt(file.truncateEpoch());
        }
        writeShare(out, Optional.empty());
    }, in -> {
        Optional<DeletedFile> file = Optional.empty();
        if (in.readBoolean()) {
            file = Optional.of(new DeletedFile(in.readUTF(), in.readLong(), XLocSet.parseFrom(readBytes(in)),
                    in.readInt()));
        }
        readShare(in);
        return file;
    });

    /** Ftruncate's result: the capability it renews, the issued epoch and the share. */
    ResultCodec<FtruncateOp.Truncation> TRUNCATION = of((result, out) -> {
        writeBytes(out, result.request().toByteArray());
        out.writeInt(result.truncateEpoch());
        writeShare(out, result.share());
    }, in -> new FtruncateOp.Truncation(XCapRequest.parseFrom(readBytes(in)), in.readInt(), readShare(in)));

    /**
     * The replica operations' result (MRC_ADD_REPLICA, MRC_REPLICA_FILLED, MRC_REMOVE_REPLICA): the file's record
     * after the change, the share, and a removed replica's XLoc.
     */
    ResultCodec<ReplicaChanges.Result> REPLICA_CHANGE = of((result, out) -> {
        out.writeUTF(result.volumeId());
        writeBytes(out, result.record().encode());
        writeShare(out, result.share());
        writeBytes(out, result.removed().map(XLocSet::toByteArray).orElse(new byte[0]));
    }, in -> {
        String volumeId = in.readUTF();
        InodeRecord record = InodeRecord.decode(readBytes(in));
        Optional<VolumeShare> share = readShare(in);
        byte[] removed = readBytes(in);
        return new ReplicaChanges.Result(volumeId, record, share,
                removed.length == 0 ? Optional.empty() : Optional.of(XLocSet.parseFrom(removed)));
    });

    /** Writes one result's fields. */
    interface Writer<T> {
        void write(T result, DataOutputStream out) throws IOException;
    }

    /** Reads them back in the same order. */
    interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static <T> ResultCodec<T> of(Writer<T> writer, Reader<T> reader) {
        return new ResultCodec<>() {
            @Override
            public byte[] encode(T result) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
                try (DataOutputStream out = new DataOutputStream(bytes)) {
                    writer.write(result, out);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return bytes.toByteArray();
            }

            @Override
            public T decode(byte[] bytes) {
                try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
                    return reader.read(in);
                } catch (IOException e) {
                    throw new IllegalStateException("corrupt recorded outcome: " + e.getMessage(), e);
                }
            }
        };
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }

    private static void writeShare(DataOutputStream out, Optional<VolumeShare> share) throws IOException {
        writeBytes(out, share.map(QosWire::toWire).map(QosShare::toByteArray).orElse(new byte[0]));
    }

    private static Optional<VolumeShare> readShare(DataInputStream in) throws IOException {
        byte[] bytes = readBytes(in);
        return bytes.length == 0 ? Optional.empty() : QosWire.share(QosShare.parseFrom(bytes));
    }
}
