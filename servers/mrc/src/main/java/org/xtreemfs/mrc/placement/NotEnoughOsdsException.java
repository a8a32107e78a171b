package org.xtreemfs.mrc.placement;

/** A selection policy found fewer suitable OSDs than the stripe width needs. */
public final class NotEnoughOsdsException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int needed;
    private final int available;

    public NotEnoughOsdsException(String policyName, int needed, int available, int online) {
        super("not enough OSDs for a stripe width of " + needed + ": policy '" + policyName + "' found "
                + available + " suitable of " + online + " online");
        this.needed = needed;
        this.available = available;
    }

    /** For a replicated file: {@code replicas} copies of a stripe of {@code width} need replicas * width OSDs. */
    public NotEnoughOsdsException(String policyName, int replicas, int width, int available, int online) {
        super("not enough OSDs for " + replicas + " replicas of stripe width " + width + ": they need "
                + replicas * width + " distinct OSDs, policy '" + policyName + "' found " + available + " suitable of "
                + online + " online");
        this.needed = replicas * width;
        this.available = available;
    }

    public int needed() {
        return needed;
    }

    public int available() {
        return available;
    }
}
