package org.xtreemfs.mrc.ops;

import java.util.Optional;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * What an apply step hands to an answer that signs a capability: its result and the volume's reservation
 * share read from the ledger in apply (the ledger belongs to the metadata thread; the answer, which reads
 * the clock to sign, runs after it). Empty share: the volume has no reservation.
 */
record WithShare<T>(T value, Optional<VolumeShare> share) {}
