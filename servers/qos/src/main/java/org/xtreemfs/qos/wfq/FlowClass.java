package org.xtreemfs.qos.wfq;

/** Service class of a flow (a volume on one OSD). */
public enum FlowClass {
    /** Has a reservation that the constraint phase guarantees, plus a weighted share of spare capacity. */
    RESERVED,
    /** No reservation; a weighted share of whatever capacity the reservations leave. */
    BEST_EFFORT,
    /** Served only when no reserved or best-effort request is eligible. */
    COLD
}
