package org.xtreemfs.client;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Volume-relative paths as the client sends them to the MRC: absolute, '/'-separated, without the volume
 * name, no empty, "." or ".." components, no trailing slash; the root is "/". Pure string functions.
 */
public final class VolumePath {
    public static final String ROOT = "/";

    private VolumePath() {}

    /** Normalises {@code path}: collapses repeated slashes, drops ".", resolves ".." (not above the root). */
    public static String normalize(String path) {
        if (path == null) {
            throw new IllegalArgumentException("path must not be null");
        }
        if (path.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("path '" + path.replace('\0', '?') + "' contains a NUL byte");
        }
        Deque<String> components = new ArrayDeque<>();
        for (String component : path.split("/")) {
            if (component.isEmpty() || ".".equals(component)) {
                continue;
            }
            if ("..".equals(component)) {
                if (components.isEmpty()) {
                    throw new IllegalArgumentException("path '" + path + "' leaves the volume root through '..'");
                }
                components.removeLast();
            } else {
                components.addLast(component);
            }
        }
        return components.isEmpty() ? ROOT : "/" + String.join("/", components);
    }

    /** The parent of a normalised path; the root's parent is the root. */
    public static String parent(String normalizedPath) {
        int slash = normalizedPath.lastIndexOf('/');
        return slash <= 0 ? ROOT : normalizedPath.substring(0, slash);
    }

    /** True when {@code candidate} is {@code ancestor} or lies below it (both normalised). */
    public static boolean isSameOrBelow(String candidate, String ancestor) {
        if (ROOT.equals(ancestor)) {
            return true;
        }
        return candidate.equals(ancestor) || candidate.startsWith(ancestor + "/");
    }
}
