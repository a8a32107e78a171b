package org.xtreemfs.osd.storage;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Maps file ids ("volumeId:inodeNumber") to folder names. Escaping keeps letters, digits, '-', '_' and
 * '.' and writes every other UTF-8 byte as %XX, so any id maps to one safe name and back without clashes.
 */
public final class FileIds {
    /** Longest accepted file id; escaping may triple it and folder names are limited to 255 bytes. */
    public static final int FILE_ID_LENGTH_MAX = 80;

    private FileIds() {}

    /** Null when the id is acceptable, otherwise the reason it is not. */
    public static String problem(String fileId) {
        if (fileId == null || fileId.isEmpty()) {
            return "file id is empty";
        }
        if (fileId.length() > FILE_ID_LENGTH_MAX) {
            return "file id is longer than " + FILE_ID_LENGTH_MAX + " characters: " + fileId;
        }
        return null;
    }

    public static String escape(String fileId) {
        StringBuilder name = new StringBuilder(fileId.length() + 8);
        for (byte b : fileId.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || (c == '.' && name.length() > 0);
            if (plain) {
                name.append(c);
            } else {
                name.append('%').append(Character.toUpperCase(Character.forDigit((c >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return name.toString();
    }

    public static String unescape(String name) {
        byte[] bytes = new byte[name.length()];
        int length = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '%' && i + 2 < name.length()) {
                bytes[length++] = (byte) Integer.parseInt(name.substring(i + 1, i + 3), 16);
                i += 2;
            } else {
                bytes[length++] = (byte) c;
            }
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    /** The two levels of hash folders ("3f", "a0") that spread files evenly over 65536 folders. */
    public static String[] hashFolders(String fileId) {
        CRC32 crc = new CRC32();
        crc.update(fileId.getBytes(StandardCharsets.UTF_8));
        long hash = crc.getValue();
        return new String[] {HEX_BYTES[(int) (hash >>> 8) & 0xff], HEX_BYTES[(int) hash & 0xff]};
    }

    /** "00" .. "ff": every object access names its hash folders, and String.format showed in its CPU profile. */
    private static final String[] HEX_BYTES = new String[256];

    static {
        for (int i = 0; i < HEX_BYTES.length; i++) {
            HEX_BYTES[i] = String.format("%02x", i);
        }
    }
}
