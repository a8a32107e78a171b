package org.xtreemfs.mrc.metadata;

import com.google.protobuf.InvalidProtocolBufferException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.Stat;

/**
 * What the MRC stores per inode: the POSIX attributes, the file's layout (XLoc, empty until first
 * opened), a symlink's target, a directory's parent (for ".." and the rename loop check), the
 * highest truncate epoch issued, and whether the inode may have extended attributes. Invariant:
 * {@code stat.truncate_epoch <= issuedTruncateEpoch}; the stat's epoch is the epoch of the size it holds.
 *
 * <p>{@code mayHaveXattrs} false means the store holds no xattr record of this inode, so deleting it needs no
 * scan of its xattr keys (creating that RocksDB iterator was 36 of the unlink's 53 µs xattr scan, the scan a
 * quarter of the unlink's logic: tests/bench/fuse/README.md). Kept true or exact by {@link Namespace}'s xattr
 * writes, which change the record in the same batch as the attribute; a record written before the flag existed
 * (no trailing byte) or by a build without it reads as true, so such an inode is scanned as before.
 */
public record InodeRecord(Stat stat, XLocSet xlocs, String symlinkTarget, long parentInode,
        int issuedTruncateEpoch, boolean mayHaveXattrs) {
    private static final int FORMAT_VERSION = 1;
    /**
     * The trailing byte after the version-1 fields: 0 = no xattrs, 1 = may have some. A trailing byte instead of a
     * new format version, so that a build without the flag still reads the record (it ignores what follows the
     * fields it knows) and, rewriting it, drops the byte, which reads as "may have" here: never a wrong "none".
     */
    private static final int XATTRS_NONE = 0;
    private static final int XATTRS_POSSIBLE = 1;

    public InodeRecord {
        if (Integer.compareUnsigned(stat.getTruncateEpoch(), issuedTruncateEpoch) > 0) {
            throw new IllegalArgumentException("size epoch " + stat.getTruncateEpoch()
                    + " is newer than the issued epoch " + issuedTruncateEpoch);
        }
        xlocs = xlocs == null ? XLocSet.getDefaultInstance() : xlocs;
        symlinkTarget = symlinkTarget == null ? "" : symlinkTarget;
    }

    /** A new inode: it has no extended attributes yet (its number was never used, so no xattr key exists). */
    public InodeRecord(Stat stat, XLocSet xlocs, String symlinkTarget, long parentInode, int issuedTruncateEpoch) {
        this(stat, xlocs, symlinkTarget, parentInode, issuedTruncateEpoch, false);
    }

    public long inode() {
        return stat.getInode();
    }

    public int mode() {
        return stat.getMode();
    }

    public boolean isDirectory() {
        return FileModes.isDirectory(stat.getMode());
    }

    public boolean isRegularFile() {
        return FileModes.isRegularFile(stat.getMode());
    }

    public boolean isSymlink() {
        return FileModes.isSymlink(stat.getMode());
    }

    public boolean hasLayout() {
        return xlocs.getReplicasCount() > 0;
    }

    public InodeRecord withStat(Stat newStat) {
        return new InodeRecord(newStat, xlocs, symlinkTarget, parentInode, issuedTruncateEpoch, mayHaveXattrs);
    }

    public InodeRecord withXlocs(XLocSet newXlocs) {
        return new InodeRecord(stat, newXlocs, symlinkTarget, parentInode, issuedTruncateEpoch, mayHaveXattrs);
    }

    public InodeRecord withParent(long newParentInode) {
        return new InodeRecord(stat, xlocs, symlinkTarget, newParentInode, issuedTruncateEpoch, mayHaveXattrs);
    }

    public InodeRecord withIssuedTruncateEpoch(int epoch) {
        return new InodeRecord(stat, xlocs, symlinkTarget, parentInode, epoch, mayHaveXattrs);
    }

    public InodeRecord withMayHaveXattrs(boolean possible) {
        return new InodeRecord(stat, xlocs, symlinkTarget, parentInode, issuedTruncateEpoch, possible);
    }

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            writeBytes(out, stat.toByteArray());
            writeBytes(out, xlocs.toByteArray());
            out.writeUTF(symlinkTarget);
            out.writeLong(parentInode);
            out.writeInt(issuedTruncateEpoch);
            out.writeByte(mayHaveXattrs ? XATTRS_POSSIBLE : XATTRS_NONE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static InodeRecord decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            checkFormat(in.readUnsignedByte());
            Stat stat = Stat.parseFrom(readBytes(in));
            XLocSet xlocs = XLocSet.parseFrom(readBytes(in));
            String target = in.readUTF();
            long parent = in.readLong();
            int issued = in.readInt();
            // No trailing byte: written before the flag existed or by a build without it, so it may have xattrs.
            boolean mayHaveXattrs = in.available() == 0 || in.readUnsignedByte() != XATTRS_NONE;
            return new InodeRecord(stat, xlocs, target, parent, issued, mayHaveXattrs);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt inode record: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalStateException("corrupt inode record: " + e, e);
        }
    }

    /**
     * The Stat of an encoded record, without decoding the rest (the XLoc set is most of a file's record): for
     * listings, which answer only the Stat. Reads the same leading fields as {@link #decode}.
     */
    public static Stat decodeStat(byte[] value) {
        ByteBuffer fields = ByteBuffer.wrap(value);
        try {
            checkFormat(Byte.toUnsignedInt(fields.get()));
            int length = fields.getInt();
            if (length < 0 || length > fields.remaining()) {
                throw new IllegalStateException("corrupt inode record: field length " + length + " exceeds the record");
            }
            return Stat.parser().parseFrom(value, fields.position(), length);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt inode record: " + e.getMessage(), e);
        } catch (BufferUnderflowException e) {
            throw new IllegalStateException("corrupt inode record of " + value.length + " bytes", e);
        }
    }

    private static void checkFormat(int version) {
        if (version != FORMAT_VERSION) {
            throw new IllegalStateException("unknown inode record format " + version);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) {
            throw new IOException("field length " + length + " exceeds the record");
        }
        return in.readNBytes(length);
    }
}
