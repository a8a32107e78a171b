package org.xtreemfs.dir.registry;

/**
 * A registry request cannot be carried out; {@link #reason()} says whether the caller sent something
 * malformed, named something unknown, or collided with an existing entry. The message names the value.
 */
public final class RegistryException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a request was refused; the RPC layer maps each to the error a caller can act on. */
    public enum Reason {
        /** The request is malformed (missing uuid, bad port, DEAD sent as a status...). */
        INVALID,
        /** The request names a service or volume the DIR does not know. */
        NOT_FOUND,
        /** The request contradicts an existing entry (volume name taken by another id...). */
        CONFLICT
    }

    private final Reason reason;

    public RegistryException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public static RegistryException invalid(String message) {
        return new RegistryException(Reason.INVALID, message);
    }

    public static RegistryException notFound(String message) {
        return new RegistryException(Reason.NOT_FOUND, message);
    }

    public static RegistryException conflict(String message) {
        return new RegistryException(Reason.CONFLICT, message);
    }

    public Reason reason() {
        return reason;
    }
}
