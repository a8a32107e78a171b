package org.xtreemfs.mrc.metadata;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.Keys;

/**
 * Key layout of the MRC's KV store. Every key starts with a one-byte record kind; namespace keys then
 * carry the volume id (a fixed-length UUID string) and a 0x00 separator, so one volume's records of
 * one kind form a contiguous range and dentries of one directory sort by name (unsigned UTF-8 bytes).
 *
 * <pre>
 * 'V' volumeId                          -> Volume (protobuf)
 * 'N' volumeName                        -> volumeId (UTF-8)
 * 'C' volumeId                          -> next free inode number (8 bytes, big-endian)
 * 'I' volumeId 0x00 inode               -> InodeRecord
 * 'D' volumeId 0x00 parentInode name    -> child inode (8 bytes, big-endian)
 * 'X' volumeId 0x00 inode name          -> xattr value
 * 'M' name                              -> MRC-wide values (e.g. the service UUID)
 * 'R' clientId 0x00 requestNumber       -> recorded outcome of an exactly-once request (OutcomeJournal): format
 *                                          version, procedure, recording time, encoded result
 * 'r' recordedAtMs clientId 0x00 requestNumber -> empty: the time index of the outcomes that builds before issue 10's
 *                                          session 17 wrote with every record; no longer written, deleted at open
 * 'W' volumeId 0x00 inode               -> replica work left on the file's chain: the replica count to restore
 *                                          (4 bytes, big-endian; 0: none, only a filling replica to finish)
 * 'G' volumeId 0x00 inode               -> a deleted file whose objects the OSDs have not yet all queued for
 *                                          deletion: {@link DeletedFile#encodeObjects} (ObjectDeletions)
 * </pre>
 */
public final class KvLayout {
    static final byte VOLUME = 'V';
    static final byte VOLUME_NAME = 'N';
    static final byte INODE_COUNTER = 'C';
    static final byte INODE = 'I';
    static final byte DENTRY = 'D';
    static final byte XATTR = 'X';
    static final byte MRC = 'M';
    static final byte OUTCOME = 'R';
    static final byte OUTCOME_BY_TIME = 'r';
    static final byte REPLICA_WORK = 'W';
    static final byte OBJECT_DELETION = 'G';
    private static final byte SEPARATOR = 0;

    private KvLayout() {}

    static byte[] volume(String volumeId) {
        return Keys.concat(new byte[] {VOLUME}, Keys.utf8(volumeId));
    }

    static KeyRange allVolumes() {
        return KeyRange.prefix(new byte[] {VOLUME});
    }

    static byte[] volumeName(String volumeName) {
        return Keys.concat(new byte[] {VOLUME_NAME}, Keys.utf8(volumeName));
    }

    static byte[] inodeCounter(String volumeId) {
        return Keys.concat(new byte[] {INODE_COUNTER}, Keys.utf8(volumeId));
    }

    static byte[] inode(String volumeId, long inode) {
        return Keys.concat(volumePrefix(INODE, volumeId), Keys.longBigEndian(inode));
    }

    static byte[] dentry(String volumeId, long parentInode, String name) {
        return Keys.concat(dentryPrefix(volumeId, parentInode), Keys.utf8(name));
    }

    static byte[] dentryPrefix(String volumeId, long parentInode) {
        return Keys.concat(volumePrefix(DENTRY, volumeId), Keys.longBigEndian(parentInode));
    }

    /** The name part of a dentry key produced by {@link #dentry}. */
    static String dentryName(String volumeId, byte[] key) {
        int offset = 1 + Keys.utf8(volumeId).length + 1 + Long.BYTES;
        return new String(key, offset, key.length - offset, StandardCharsets.UTF_8);
    }

    static byte[] xattr(String volumeId, long inode, String name) {
        return Keys.concat(xattrPrefix(volumeId, inode), Keys.utf8(name));
    }

    static byte[] xattrPrefix(String volumeId, long inode) {
        return Keys.concat(volumePrefix(XATTR, volumeId), Keys.longBigEndian(inode));
    }

    static String xattrName(String volumeId, byte[] key) {
        return dentryName(volumeId, key);
    }

    /** Every record of one kind that belongs to a volume. */
    static KeyRange volumeRange(byte kind, String volumeId) {
        return KeyRange.prefix(volumePrefix(kind, volumeId));
    }

    static byte[] mrcValue(String name) {
        return Keys.concat(new byte[] {MRC}, Keys.utf8(name));
    }

    static byte[] outcome(String clientId, long requestNumber) {
        return Keys.concat(new byte[] {OUTCOME}, Keys.utf8(clientId), new byte[] {SEPARATOR},
                Keys.longBigEndian(requestNumber));
    }

    /** Every recorded outcome, by client and number. */
    static KeyRange allOutcomes() {
        return KeyRange.prefix(new byte[] {OUTCOME});
    }

    /** The time index older builds wrote next to every outcome ('r'); {@link OutcomeJournal} deletes it at open. */
    static KeyRange legacyOutcomeIndex() {
        return KeyRange.prefix(new byte[] {OUTCOME_BY_TIME});
    }

    /** The client id inside an {@link #outcome} key. */
    static String outcomeClientId(byte[] outcomeKey) {
        return new String(outcomeKey, 1, outcomeKey.length - 1 - 1 - Long.BYTES, StandardCharsets.UTF_8);
    }

    /** The request number inside an {@link #outcome} key. */
    static long outcomeRequestNumber(byte[] outcomeKey) {
        return ByteBuffer.wrap(outcomeKey, outcomeKey.length - Long.BYTES, Long.BYTES).getLong();
    }

    static byte[] replicaWork(String volumeId, long inode) {
        return Keys.concat(volumePrefix(REPLICA_WORK, volumeId), Keys.longBigEndian(inode));
    }

    /** Every file with replica work left, from {@code afterKey} on (exclusive; null: from the first). */
    static KeyRange replicaWorkAfter(byte[] afterKey) {
        KeyRange all = KeyRange.prefix(new byte[] {REPLICA_WORK});
        return afterKey == null ? all : KeyRange.between(Keys.concat(afterKey, new byte[] {0}), all.endExclusive());
    }

    static byte[] objectDeletion(String volumeId, long inode) {
        return Keys.concat(volumePrefix(OBJECT_DELETION, volumeId), Keys.longBigEndian(inode));
    }

    static KeyRange allObjectDeletions() {
        return KeyRange.prefix(new byte[] {OBJECT_DELETION});
    }

    /** The volume id inside a {@link #replicaWork} or {@link #objectDeletion} key. */
    static String replicaWorkVolumeId(byte[] key) {
        return new String(key, 1, key.length - 1 - 1 - Long.BYTES, StandardCharsets.UTF_8);
    }

    /** The inode inside a {@link #replicaWork} or {@link #objectDeletion} key. */
    static long replicaWorkInode(byte[] key) {
        return ByteBuffer.wrap(key, key.length - Long.BYTES, Long.BYTES).getLong();
    }

    /** The inode number of an {@link #inode} key (laid out as a {@link #replicaWork} key's end). */
    static long inodeOfKey(byte[] inodeKey) {
        return replicaWorkInode(inodeKey);
    }

    static byte[] encodeLong(long value) {
        return Keys.longBigEndian(value);
    }

    static long decodeLong(byte[] value) {
        if (value.length != Long.BYTES) {
            throw new IllegalStateException("corrupt 8-byte value of length " + value.length + ": "
                    + Arrays.toString(value));
        }
        return ByteBuffer.wrap(value).getLong();
    }

    private static byte[] volumePrefix(byte kind, String volumeId) {
        return Keys.concat(new byte[] {kind}, Keys.utf8(volumeId), new byte[] {SEPARATOR});
    }
}
