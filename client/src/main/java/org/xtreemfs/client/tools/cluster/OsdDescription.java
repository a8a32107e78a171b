package org.xtreemfs.client.tools.cluster;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One OSD of a cluster description: a name (its log and data folder are named after it) and the settings it
 * starts with on top of the launcher's defaults. The short spec form {@code name=seq,usage=sequential,
 * device=hdd,emulation=hdd7200,osd.locks.leaseMs=6000} maps {@code usage}, {@code device} and
 * {@code emulation} to {@code osd.usage.type}, {@code osd.device.class} and {@code osd.device.emulation};
 * any key with a dot is passed on as it is. Values are checked by the OSD itself (its config is the one
 * authority): a bad one makes the OSD exit at start with a message that names it.
 */
public record OsdDescription(String name, Map<String, String> settings) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");
    static final String USAGE_KEY = "osd.usage.type";
    static final String DEVICE_KEY = "osd.device.class";
    static final String EMULATION_KEY = "osd.device.emulation";
    /** Set by the launcher to each OSD's part of the shared file system unless the description sets it. */
    static final String CAPACITY_KEY = "osd.object.capacityBytes";

    public OsdDescription {
        checkName(name);
        settings = Map.copyOf(settings);
    }

    static void checkName(String name) {
        if (!NAME.matcher(name).matches() || name.equals("dir") || name.equals("mrc")) {
            throw new IllegalArgumentException("bad server name '" + name
                    + "': 1-32 of a-z, 0-9, '_' and '-', starting with a letter or digit, not 'dir' or 'mrc'");
        }
    }

    /** Parses the short spec form; {@code defaultName} is used when the spec names no OSD. */
    public static OsdDescription parse(String spec, String defaultName) {
        String name = defaultName;
        Map<String, String> settings = new LinkedHashMap<>();
        for (String part : spec.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int equals = part.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("bad OSD description '" + spec + "': '" + part
                        + "' is not key=value");
            }
            String key = part.substring(0, equals).trim();
            String value = part.substring(equals + 1).trim();
            switch (key) {
                case "name" -> name = value;
                case "usage" -> settings.put(USAGE_KEY, value);
                case "device" -> settings.put(DEVICE_KEY, value);
                case "emulation" -> settings.put(EMULATION_KEY, value);
                default -> {
                    if (!key.contains(".")) {
                        throw new IllegalArgumentException("unknown key '" + key + "' in OSD description '" + spec
                                + "' (name, usage, device, emulation or a setting such as osd.locks.leaseMs)");
                    }
                    settings.put(key, value);
                }
            }
        }
        return new OsdDescription(name, settings);
    }

    /** "sequential hdd (emulated hdd7200)" for status lines; the OSD's defaults where the spec says nothing. */
    String summary() {
        String usage = settings.getOrDefault(USAGE_KEY, "(default usage)");
        String device = settings.getOrDefault(DEVICE_KEY, "(default device)");
        String emulation = settings.get(EMULATION_KEY);
        return usage + " " + device + (emulation == null || emulation.isEmpty() ? "" : " (emulated " + emulation + ")");
    }
}
