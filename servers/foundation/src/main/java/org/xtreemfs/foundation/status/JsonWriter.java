package org.xtreemfs.foundation.status;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Serialises maps, records (as objects of their components, e.g. {@code StageMetrics}),
 * collections, arrays of objects, strings, numbers, booleans, enums and {@code null} to JSON;
 * anything else becomes its {@code toString}. Status pages need nothing richer, so no library is
 * pulled in. Non-finite doubles become {@code null}, as JSON has no NaN.
 */
public final class JsonWriter {

    /** Guards against cycles (a map containing itself) turning into a stack overflow. */
    private static final int DEPTH_MAX = 64;

    private JsonWriter() {
    }

    public static String write(Object value) {
        StringBuilder json = new StringBuilder();
        append(json, value, 0);
        return json.toString();
    }

    private static void append(StringBuilder json, Object value, int depth) {
        if (depth > DEPTH_MAX) {
            throw new IllegalArgumentException("JSON value nested deeper than " + DEPTH_MAX);
        }
        if (value == null) {
            json.append("null");
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte) {
            json.append(value);
        } else if (value instanceof Number number) {
            double asDouble = number.doubleValue();
            json.append(Double.isFinite(asDouble) ? number.toString() : "null");
        } else if (value instanceof Map<?, ?> map) {
            json.append('{');
            Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
            while (entries.hasNext()) {
                Map.Entry<?, ?> entry = entries.next();
                appendString(json, String.valueOf(entry.getKey()));
                json.append(':');
                append(json, entry.getValue(), depth + 1);
                if (entries.hasNext()) {
                    json.append(',');
                }
            }
            json.append('}');
        } else if (value instanceof Record record) {
            appendRecord(json, record, depth);
        } else if (value instanceof Iterable<?> iterable) {
            appendArray(json, iterable.iterator(), depth);
        } else if (value instanceof Object[] array) {
            appendArray(json, java.util.Arrays.asList(array).iterator(), depth);
        } else {
            appendString(json, value instanceof Enum<?> constant ? constant.name()
                    : value.toString());
        }
    }

    private static void appendRecord(StringBuilder json, Record record, int depth) {
        Map<String, Object> components = new LinkedHashMap<>();
        for (RecordComponent component : record.getClass().getRecordComponents()) {
            try {
                Method accessor = component.getAccessor();
                accessor.setAccessible(true);
                components.put(component.getName(), accessor.invoke(record));
            } catch (ReflectiveOperationException | RuntimeException e) {
                components.put(component.getName(), "unreadable: " + e);
            }
        }
        append(json, components, depth);
    }

    private static void appendArray(StringBuilder json, Iterator<?> elements, int depth) {
        json.append('[');
        while (elements.hasNext()) {
            append(json, elements.next(), depth + 1);
            if (elements.hasNext()) {
                json.append(',');
            }
        }
        json.append(']');
    }

    private static void appendString(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
