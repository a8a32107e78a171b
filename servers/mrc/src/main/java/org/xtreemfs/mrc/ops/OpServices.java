package org.xtreemfs.mrc.ops;

import java.util.function.Supplier;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.capability.CapabilityIssuer;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OutcomeJournal;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.mrc.registry.DirRegistration;
import org.xtreemfs.mrc.registry.OsdDirectory;
import org.xtreemfs.mrc.stages.MetadataStage;

/**
 * What the operation classes share. {@code namespace} and {@code ledger} may only be used inside an apply
 * step (on the metadata thread); the rest is thread-safe. {@code volumeIds} is the randomness seam for
 * volume ids; {@code capabilities} reads the clock, so it is used only in prepare (verify) and answer
 * (issue), never in apply. {@code outcomes} (exactly-once requests) is used by {@link MetadataOp} in apply.
 */
public record OpServices(Namespace namespace, ReservationLedger ledger, OsdSelectionPolicies policies,
        MetadataStage metadataStage, CapabilityIssuer capabilities, OsdDirectory osds, DirRegistration dir,
        Clock clock, Supplier<String> volumeIds, OperationCounters counters, OutcomeJournal outcomes,
        CallerIdentity callerIdentity) {}
