package org.xtreemfs.mrc.metadata;

import com.google.protobuf.InvalidProtocolBufferException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.mrc.Stat;

/**
 * What the MRC stores per inode: the POSIX attributes, the file's layout (XLoc, empty until first
 * opened), a symlink's target, a directory's parent (for ".." and the rename loop check) and the
 * highest truncate epoch issued. Invariant: {@code stat.truncate_epoch <= issuedTruncateEpoch}; the
 * stat's epoch is the epoch of the size it holds.
 */
public record InodeRecord(Stat stat, XLocSet xlocs, String symlinkTarget, long parentInode,
        int issuedTruncateEpoch) {
    private static final int FORMAT_VERSION = 1;

    public InodeRecord {
        if (Integer.compareUnsigned(stat.getTruncateEpoch(), issuedTruncateEpoch) > 0) {
            throw new IllegalArgumentException("size epoch " + stat.getTruncateEpoch()
                    + " is newer than the issued epoch " + issuedTruncateEpoch);
        }
        xlocs = xlocs == null ? XLocSet.getDefaultInstance() : xlocs;
        symlinkTarget = symlinkTarget == null ? "" : symlinkTarget;
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
        return new InodeRecord(newStat, xlocs, symlinkTarget, parentInode, issuedTruncateEpoch);
    }

    public InodeRecord withXlocs(XLocSet newXlocs) {
        return new InodeRecord(stat, newXlocs, symlinkTarget, parentInode, issuedTruncateEpoch);
    }

    public InodeRecord withParent(long newParentInode) {
        return new InodeRecord(stat, xlocs, symlinkTarget, newParentInode, issuedTruncateEpoch);
    }

    public InodeRecord withIssuedTruncateEpoch(int epoch) {
        return new InodeRecord(stat, xlocs, symlinkTarget, parentInode, epoch);
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static InodeRecord decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            int version = in.readUnsignedByte();
            if (version != FORMAT_VERSION) {
                throw new IllegalStateException("unknown inode record format " + version);
            }
            Stat stat = Stat.parseFrom(readBytes(in));
            XLocSet xlocs = XLocSet.parseFrom(readBytes(in));
            String target = in.readUTF();
            long parent = in.readLong();
            int issued = in.readInt();
            return new InodeRecord(stat, xlocs, target, parent, issued);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt inode record: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalStateException("corrupt inode record: " + e, e);
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
