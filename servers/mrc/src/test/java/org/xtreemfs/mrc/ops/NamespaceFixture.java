package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.mrc.OpenFlag;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.admission.ReservationLedger;
import org.xtreemfs.mrc.metadata.AtimePolicy;
import org.xtreemfs.mrc.metadata.Caller;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.placement.OsdCandidate;
import org.xtreemfs.mrc.placement.OsdSelectionPolicies;
import org.xtreemfs.qos.model.OsdProfiles;
import org.xtreemfs.qos.scheduler.ReservationScheduler;

/** A namespace core (and reservation ledger) on an in-memory store with one volume "vol" (mode 0777,
        owned by root) and three OSDs. */
class NamespaceFixture {
    static final int CREAT = OpenFlag.O_CREAT_FLAG_VALUE;
    static final int EXCL = OpenFlag.O_EXCL_FLAG_VALUE;
    static final int TRUNC = OpenFlag.O_TRUNC_FLAG_VALUE;
    static final int WRONLY = OpenFlag.O_WRONLY_FLAG_VALUE;
    static final int RDWR = OpenFlag.O_RDWR_FLAG_VALUE;
    static final int APPEND = OpenFlag.O_APPEND_FLAG_VALUE;
    static final Caller ROOT = Caller.root();
    static final Caller ALICE = new Caller("alice", 1000, 1000, List.of(1000, 50));
    static final Caller BOB = new Caller("bob", 1001, 1001, List.of(1001));
    static final List<OsdCandidate> OSDS = List.of(
            new OsdCandidate("osd-a", OsdUsageType.OSD_BEST_EFFORT, 100L << 30, 200L << 30, 5),
            new OsdCandidate("osd-b", OsdUsageType.OSD_BEST_EFFORT, 100L << 30, 200L << 30, 5),
            new OsdCandidate("osd-c", OsdUsageType.OSD_BEST_EFFORT, 100L << 30, 200L << 30, 5));
    /** What admissions see: the best-effort OSDs above plus three sequential and one random SSD, all alive. */
    static final List<OsdReport> OSD_REPORTS = OsdReport.of(List.of(typed("osd-a",
            org.xtreemfs.qos.model.OsdUsageType.BEST_EFFORT),
            typed("osd-b", org.xtreemfs.qos.model.OsdUsageType.BEST_EFFORT),
            typed("osd-c", org.xtreemfs.qos.model.OsdUsageType.BEST_EFFORT),
            typed("seq-1", org.xtreemfs.qos.model.OsdUsageType.SEQUENTIAL),
            typed("seq-2", org.xtreemfs.qos.model.OsdUsageType.SEQUENTIAL),
            typed("seq-3", org.xtreemfs.qos.model.OsdUsageType.SEQUENTIAL),
            typed("rnd-1", org.xtreemfs.qos.model.OsdUsageType.RANDOM)));

    private static Service typed(String uuid, org.xtreemfs.qos.model.OsdUsageType usageType) {
        return Service.newBuilder().setType(ServiceType.SERVICE_TYPE_OSD).setUuid(uuid)
                .setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .setOsdAttributes(OsdAttributes.newBuilder().setProfile(QosWire.toWire(OsdProfiles.sataSsd(usageType))))
                .build();
    }

    final KvStore store;
    final Namespace namespace;
    final ReservationLedger ledger;
    final OsdSelectionPolicies policies = OsdSelectionPolicies.standard(0, false);
    long nowMs = 1_767_225_600_000L;

    NamespaceFixture() {
        this(new InMemoryKvStore());
    }

    NamespaceFixture(KvStore store) {
        this(store, AtimePolicy.RELATIME);
    }

    NamespaceFixture(KvStore store, AtimePolicy atimePolicy) {
        this.store = store;
        this.namespace = new Namespace(store, Durability.BUFFERED, atimePolicy);
        this.ledger = ReservationLedger.load(store, new ReservationScheduler());
    }

    OperationContext as(Caller caller) {
        nowMs += 1000;
        return OperationContext.of(caller, nowMs).withOsds(OSDS).withOsdReports(OSD_REPORTS);
    }

    Volume createVolume(String name) throws RpcException {
        return createVolume(as(ROOT), Volume.newBuilder().setName(name).setMode(0777).build(),
                "00000000-0000-0000-0000-00000000000" + (namespace.listVolumes().size() + 1));
    }

    /** {@link OpenOp#open} with this fixture's ledger and placement policies. */
    OpenResult open(OperationContext context, String volumeName, String path, int flags, int mode)
            throws RpcException {
        return OpenOp.open(namespace, ledger, policies, context, volumeName, path, flags, mode);
    }

    /** A volume "chains" of {@code replicas} replicas (id ...0001) and its file "/f", placed by root's open. */
    OpenResult replicatedFile(int replicas) throws RpcException {
        createVolume(as(ROOT), Volume.newBuilder().setName("chains").setMode(0777).setDefaultReplicationPolicy(
                org.xtreemfs.interfaces.common.ReplicationPolicy.newBuilder().setReplicas(replicas)).build(),
                "00000000-0000-0000-0000-000000000001");
        return open(as(ROOT), "chains", "/f", CREAT | RDWR, 0644);
    }

    /** {@link VolumeCreateOp#createVolume} with this fixture's ledger and placement policies. */
    Volume createVolume(OperationContext context, Volume request, String volumeId) throws RpcException {
        return VolumeCreateOp.createVolume(namespace, ledger, policies, context, request, volumeId);
    }

    /** {@link VolumeDeleteOp#deleteVolume} with this fixture's ledger. */
    Volume deleteVolume(OperationContext context, String volumeName) throws RpcException {
        return VolumeDeleteOp.deleteVolume(namespace, ledger, context, volumeName);
    }

    static RpcException failure(ThrowingCallable call) {
        RpcException error = catchThrowableOfType(RpcException.class, call);
        assertThat(error).as("expected an RpcException").isNotNull();
        return error;
    }

    /** Asserts the call fails with that errno and returns the message. */
    static String expectErrno(int errno, ThrowingCallable call) {
        RpcException error = failure(call);
        assertThat(error.errorType()).as(error.toString()).isEqualTo(ErrorType.ERRNO);
        assertThat(Errno.name(error.posixErrno())).as(error.getMessage()).isEqualTo(Errno.name(errno));
        return error.getMessage();
    }

    static String expectInvalidArgs(ThrowingCallable call) {
        RpcException error = failure(call);
        assertThat(error.errorType()).as(error.toString()).isEqualTo(ErrorType.INVALID_ARGS);
        return error.getMessage();
    }
}
