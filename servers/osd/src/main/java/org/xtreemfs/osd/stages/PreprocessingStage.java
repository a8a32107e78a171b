package org.xtreemfs.osd.stages;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.stage.Stage;
import org.xtreemfs.foundation.stage.StageHandler;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.foundation.stage.StageShutdownException;
import org.xtreemfs.foundation.striping.StripingRules;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.foundation.qos.QosWire;
import org.xtreemfs.foundation.replication.ReplicaChain;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.storage.ReplicaRole;
import org.xtreemfs.osd.storage.StripeLayout;
import org.xtreemfs.qos.model.InvalidQosValueException;
import org.xtreemfs.qos.model.VolumeShare;

/**
 * First stage after the network: checks each request's capability (signature, expiry against the clock,
 * file id, write access) and derives this OSD's stripe position from the XLoc, then hands it on. Invariant:
 * nothing reaches the QoS stage without a valid, unexpired capability for exactly its file.
 *
 * <p>With 0 threads (the default) the check runs on the network thread that received the request: it is an
 * HMAC over about 100 bytes and never blocks, and handing it to another thread costs a wake-up per request,
 * which on a busy machine is the larger cost. With threads, it runs on its own bounded stage.
 */
public final class PreprocessingStage implements AutoCloseable {
    private final String ownUuid;
    private final XCapSigner signer;
    private final Clock clock;
    /** Null when the check runs inline on the caller's (network) thread. */
    private final Stage<OsdRequest> stage;
    private final Next next;
    private final AtomicLong inlineHandled = new AtomicLong();
    private final AtomicLong inlineFailed = new AtomicLong();
    /**
     * Credentials that passed {@link #authorize}, with what was derived from them ({@link Checked}). Keyed by the
     * message (equal content, equal checks); the network ops hand every request of a file the same parsed instance
     * ({@code ops.SharedCredentialsParser}), so a lookup costs the message's memoized hash and an identity compare.
     * The OSD's one memo of a verified signature ({@link XCapSigner} keeps none): a copy with any field changed is
     * another key, so it is verified in full and refused. Bounded: past {@link #CHECKED_CREDENTIALS_MAX} it starts
     * empty again.
     */
    private final Map<FileCredentials, Checked> checkedCredentials = new ConcurrentHashMap<>();
    /** One instance per volume id seen in {@link #checkedCredentials} (see {@link Checked}); bounded likewise. */
    private final Map<String, String> volumeIds = new ConcurrentHashMap<>();
    static final int CHECKED_CREDENTIALS_MAX = 4096;
    static final int VOLUME_IDS_MAX = 4096;

    /** Credentials remembered as checked (at most {@link #CHECKED_CREDENTIALS_MAX}). */
    int checkedCredentialsCount() {
        return checkedCredentials.size();
    }

    /**
     * @param threads 0 checks on the thread calling {@link #submit}; otherwise that many stage threads
     * @param queueCapacity bound of the stage's queue (unused with 0 threads: nothing waits)
     * @param next receives every authorized request on a preprocessing thread (or the submitting thread);
     *     it throws RpcException (e.g. OVERLOADED) to fail the call
     */
    public PreprocessingStage(String ownUuid, XCapSigner signer, Clock clock, int threads, int queueCapacity,
            Next next) {
        this.ownUuid = ownUuid;
        this.signer = signer;
        this.clock = clock;
        this.next = next;
        if (threads == 0) {
            this.stage = null;
            return;
        }
        this.stage = Stage.start("preprocessing", queueCapacity, threads, clock, new StageHandler<>() {
            @Override
            public void handle(OsdRequest request) {
                try {
                    next.accept(authorize(request));
                } catch (RpcException e) {
                    request.call().fail(e);
                }
            }

            @Override
            public void onFailure(OsdRequest request, Exception error) {
                request.call().fail(RpcException.internal("preprocessing failed: " + error));
            }

            @Override
            public void onDiscarded(OsdRequest request, StageShutdownException reason) {
                request.call().fail(RpcException.internal("OSD is shutting down: " + reason.getMessage()));
            }
        });
    }

    /** The next stage's entry. */
    @FunctionalInterface
    public interface Next {
        void accept(AuthorizedRequest request) throws RpcException;
    }

    /** Queues a request; OVERLOADED naming the bound when the queue is full. */
    public void submit(OsdRequest request) throws RpcException {
        if (stage == null) {
            try {
                next.accept(authorize(request));
                inlineHandled.incrementAndGet();
            } catch (RpcException | RuntimeException e) {
                inlineFailed.incrementAndGet();
                throw e;
            }
            return;
        }
        boolean accepted;
        try {
            accepted = stage.offer(request);
        } catch (StageShutdownException e) {
            throw RpcException.internal("OSD is shutting down: " + e.getMessage());
        }
        if (!accepted) {
            throw RpcException.overloaded("OSD preprocessing queue is full at " + stage.queueCapacity()
                    + " requests (osd.preprocessing.queueCapacity); retry later");
        }
    }

    /**
     * Checks the request's capability and XLoc; pure apart from reading the clock. What depends on the credentials
     * alone (the signature, the chain, this OSD's place in it, the layout, the share) is taken from
     * {@link #checkedCredentials} once the same credentials passed before; the expiry, the file, the access mode
     * and the request's own chain rules are checked every time, in the same order as on the first request.
     */
    public AuthorizedRequest authorize(OsdRequest request) throws RpcException {
        long nowMillis = clock.wallClockMillis();
        FileCredentials credentials = request.credentials();
        Checked known = checkedCredentials.get(credentials);
        if (known != null) {
            return authorize(request, known, ownUuid, signer, nowMillis);
        }
        authorize(request, null, ownUuid, signer, nowMillis); // every check in its order; throws the first failure
        // It passed, so every check of the credentials alone passes: remember them for the file's next requests.
        if (checkedCredentials.size() >= CHECKED_CREDENTIALS_MAX) {
            checkedCredentials.clear();
        }
        known = Checked.of(credentials, request.fileId(), ownUuid, signer, volumeIds);
        checkedCredentials.put(credentials, known);
        return authorize(request, known, ownUuid, signer, nowMillis); // with the volume's one id instance
    }

    static AuthorizedRequest authorize(OsdRequest request, String ownUuid, XCapSigner signer, long nowMillis)
            throws RpcException {
        return authorize(request, null, ownUuid, signer, nowMillis);
    }

    /**
     * What {@link #authorize} derives from a request's credentials alone, all of it checked (signature, chain, this
     * OSD's membership, layout): a pure function of the credentials, this OSD's uuid and the secret. The volume id
     * is one instance per volume, so the QoS stage's and the accounting's maps find it by identity (compared
     * character by character, the four lookups per request were 0.6 % of the OSD's CPU under 4 KiB random reads).
     */
    record Checked(XCap capability, String volumeId, String fillFlowId, VolumeShare share, ReplicaChain chain,
            ReplicaChain.Member member, ChainLink link, StripeLayout layout) {
        static Checked of(FileCredentials credentials, String fileId, String ownUuid, XCapSigner signer,
                Map<String, String> volumeIds) throws RpcException {
            XCap capability = verifiedCapability(credentials, fileId, signer);
            ReplicaChain chain = PreprocessingStage.chain(credentials, fileId);
            ReplicaChain.Member member = PreprocessingStage.member(chain, credentials, fileId, ownUuid);
            if (volumeIds.size() >= VOLUME_IDS_MAX) {
                volumeIds.clear();
            }
            String volumeId = volumeIds.computeIfAbsent(capability.getVolumeId(), id -> id);
            return new Checked(capability, volumeId, fillFlow(volumeId), PreprocessingStage.share(capability), chain,
                    member, PreprocessingStage.link(chain, member, credentials),
                    PreprocessingStage.layout(credentials, member, fileId));
        }
    }

    /** {@code known}: the credentials' checked part, or null to check it here, each check at its place. */
    private static AuthorizedRequest authorize(OsdRequest request, Checked known, String ownUuid, XCapSigner signer,
            long nowMillis) throws RpcException {
        FileCredentials credentials = request.credentials();
        String fileId = request.fileId();
        XCap capability = known != null ? known.capability() : verifiedCapability(credentials, fileId, signer);
        checkUse(capability, fileId, request.needsWriteAccess(), request.getClass().getSimpleName(), nowMillis);
        ReplicaChain chain = known != null ? known.chain() : chain(credentials, fileId);
        ReplicaChain.Member member = known != null ? known.member() : member(chain, credentials, fileId, ownUuid);
        ChainLink link = known != null ? known.link() : link(chain, member, credentials);
        if (request.travelsTheChain()) {
            checkChainEntry(request, chain, member, fileId, ownUuid);
        }
        if (request instanceof OsdRequest.ReadObject read && !read.replicaFill() && link.filling()) {
            String tail = chain.tailOsds().get(member.stripePosition());
            throw RpcException.redirect(tail, "read of file " + fileId + " sent to OSD " + ownUuid + ", whose replica"
                    + " is still being filled; read at the tail, OSD " + tail);
        }
        if ((request instanceof OsdRequest.CopyObject || request instanceof OsdRequest.FillReplica)
                && !link.filling()) {
            throw RpcException.invalidArguments(request.getClass().getSimpleName() + " of file " + fileId + " sent to"
                    + " OSD " + ownUuid + ", whose replica the XLoc (version " + credentials.getXlocs().getVersion()
                    + ") does not mark as filling");
        }
        StripeLayout layout = known != null ? known.layout() : layout(credentials, member, fileId);
        // A replica fill's copies and their reads at the source are one best-effort flow per volume, apart from
        // the volume's own: a reserved volume keeps its reservation while one of its files is re-replicated.
        boolean fill = request.isReplicaFill();
        String volumeId = known != null ? (fill ? known.fillFlowId() : known.volumeId())
                : (fill ? fillFlow(capability.getVolumeId()) : capability.getVolumeId());
        VolumeShare share = fill ? VolumeShare.BEST_EFFORT : known != null ? known.share() : share(capability);
        return new AuthorizedRequest(request, volumeId, share, capability.getTruncateEpoch(), layout, link);
    }

    private static ReplicaChain.Member member(ReplicaChain chain, FileCredentials credentials, String fileId,
            String ownUuid) throws RpcException {
        return chain.member(ownUuid).orElseThrow(() -> RpcException.invalidArguments(
                "this OSD (" + ownUuid + ") is not in the XLoc of file " + fileId + ": " + credentials.getXlocs()
                        .getReplicasList().stream().map(Replica::getOsdUuidsList).toList()));
    }

    private static ChainLink link(ReplicaChain chain, ReplicaChain.Member member, FileCredentials credentials) {
        return new ChainLink(ReplicaRole.of(member), chain.successor(member), credentials.getXlocs().getVersion(),
                chain.fillSource(member), chain.readSuccessor(member));
    }

    private static StripeLayout layout(FileCredentials credentials, ReplicaChain.Member member, String fileId)
            throws RpcException {
        return layout(credentials.getXlocs().getReplicas(member.replicaIndex()), member.stripePosition(), fileId);
    }

    /**
     * Checks one file of an OSD_DELETE_FILES batch as {@link #authorize} checks a request: a valid write capability
     * of the file, and an XLoc naming this OSD in some replica (each OSD deletes its own copy: nothing travels a
     * chain).
     */
    public void authorizeDeletion(FileCredentials credentials, String fileId) throws RpcException {
        checkCapability(credentials, fileId, true, "OSD_DELETE_FILES", signer, clock.wallClockMillis());
        if (chain(credentials, fileId).member(ownUuid).isEmpty()) {
            throw RpcException.invalidArguments("this OSD (" + ownUuid + ") is not in the XLoc of file " + fileId);
        }
    }

    /** The capability's signature, expiry, file and access mode; AUTH_FAILED naming what is wrong. */
    private static XCap checkCapability(FileCredentials credentials, String fileId, boolean needsWriteAccess,
            String requestName, XCapSigner signer, long nowMillis) throws RpcException {
        XCap capability = verifiedCapability(credentials, fileId, signer);
        checkUse(capability, fileId, needsWriteAccess, requestName, nowMillis);
        return capability;
    }

    /** The capability, present and signed with this OSD's secret; AUTH_FAILED naming what is wrong. */
    private static XCap verifiedCapability(FileCredentials credentials, String fileId, XCapSigner signer)
            throws RpcException {
        if (!credentials.hasXcap()) {
            throw RpcException.authFailed("request for file " + fileId + " carries no capability");
        }
        XCap capability = credentials.getXcap();
        if (capability.getSignature().isEmpty()) {
            throw RpcException.authFailed("capability for file " + capability.getFileId() + " is unsigned");
        }
        if (!signer.verify(capability)) {
            throw RpcException.authFailed("capability for file " + capability.getFileId()
                    + " has an invalid signature (tampered, or signed with another capability.secret)");
        }
        return capability;
    }

    /** A verified capability's expiry, file and access mode for this request; AUTH_FAILED naming what is wrong. */
    private static void checkUse(XCap capability, String fileId, boolean needsWriteAccess, String requestName,
            long nowMillis) throws RpcException {
        if (capability.getExpiresMs() <= nowMillis) {
            throw RpcException.authFailed("capability for file " + capability.getFileId() + " expired at "
                    + capability.getExpiresMs() + " ms (now " + nowMillis + " ms); renew it at the MRC");
        }
        if (!capability.getFileId().equals(fileId)) {
            throw RpcException.authFailed("capability is for file " + capability.getFileId()
                    + " but the request is for file " + fileId);
        }
        AccessMode mode = capability.getAccessMode();
        if (mode == AccessMode.ACCESS_MODE_NONE || mode == AccessMode.UNRECOGNIZED) {
            throw RpcException.authFailed("capability for file " + fileId + " grants no access (" + mode + ")");
        }
        if (needsWriteAccess && mode != AccessMode.ACCESS_MODE_WRITE && mode != AccessMode.ACCESS_MODE_READ_WRITE) {
            throw RpcException.authFailed("capability for file " + fileId + " grants " + mode + " but "
                    + requestName + " needs write access");
        }
    }

    /** The fair queue's flow of a volume's replica fills: best-effort, accounted apart from the volume. */
    public static String fillFlow(String volumeId) {
        return volumeId + FILL_FLOW_SUFFIX;
    }

    /** What {@link #fillFlow} appends to the volume id. */
    public static final String FILL_FLOW_SUFFIX = "/fill";

    /** The XLoc's chains; INVALID_ARGS naming the problem when it has no replica or uneven ones. */
    private static ReplicaChain chain(FileCredentials credentials, String fileId) throws RpcException {
        if (!credentials.hasXlocs() || credentials.getXlocs().getReplicasCount() == 0) {
            throw RpcException.invalidArguments("request for file " + fileId + " carries no XLoc replica");
        }
        try {
            return ReplicaChain.of(credentials.getXlocs());
        } catch (IllegalArgumentException malformed) {
            throw RpcException.invalidArguments("file " + fileId + ": " + malformed.getMessage());
        }
    }

    /**
     * Clients send updates to the head only, and only a predecessor forwards them: otherwise the replicas would
     * apply a file's updates in different orders. A client's update at another member is REDIRECT to the head.
     */
    private static void checkChainEntry(OsdRequest request, ReplicaChain chain, ReplicaChain.Member member,
            String fileId, String ownUuid) throws RpcException {
        String kind = request.getClass().getSimpleName();
        if (member.isHead() && request.forwarded()) {
            throw RpcException.invalidArguments(kind + " of file " + fileId + " is marked forwarded but this OSD ("
                    + ownUuid + ") is the head of its chain; only a chain predecessor forwards");
        }
        if (!member.isHead() && !request.forwarded()) {
            String head = chain.headOsds().get(member.stripePosition());
            throw RpcException.redirect(head, kind + " of file " + fileId + " sent to OSD " + ownUuid + ", replica "
                    + (member.replicaIndex() + 1) + " of " + member.length() + " of its chain; send updates to the head,"
                    + " OSD " + head);
        }
    }

    /**
     * The volume's share of this OSD as the (verified) capability carries it, decoded by the one codec
     * ({@link QosWire#share(XCap)}); best-effort when it carries none. A malformed share (an unspecified or
     * unknown type with rates, rates that do not fit the type, a figure beyond a signed long) is also served
     * best-effort, not refused: the capability is signed, so such a share can only be a mistake of the MRC
     * (or of a newer one), and the request it comes with is authorized; refusing it would make a QoS fault a
     * data-path outage, and no real device delivers what a wrong figure would reserve.
     */
    static VolumeShare share(XCap capability) {
        try {
            return QosWire.share(capability).orElse(VolumeShare.BEST_EFFORT);
        } catch (InvalidQosValueException malformed) {
            return VolumeShare.BEST_EFFORT;
        }
    }

    /** This OSD's view of the file's striping (of the replica it holds): object size, width and its position. */
    static StripeLayout layout(Replica replica, int position, String fileId) throws RpcException {
        List<String> osds = replica.getOsdUuidsList();
        StripingPolicy policy = replica.getStripingPolicy();
        int width = policy.getWidth() == 0 ? osds.size() : policy.getWidth();
        if (width != osds.size()) {
            throw RpcException.invalidArguments("striping width " + width + " of file " + fileId + " differs from"
                    + " its " + osds.size() + " OSDs in the XLoc");
        }
        long objectSize = policy.getObjectSizeBytes() == 0 ? StripingRules.UNSET_OBJECT_SIZE_BYTES
                : Integer.toUnsignedLong(policy.getObjectSizeBytes());
        Optional<String> objectSizeProblem = StripingRules.objectSizeProblem(objectSize);
        if (objectSizeProblem.isPresent()) {
            throw RpcException.invalidArguments("object size " + objectSize + " of file " + fileId + " "
                    + objectSizeProblem.get());
        }
        return new StripeLayout((int) objectSize, width, position);
    }

    public StageMetrics metrics() {
        if (stage == null) {
            return new StageMetrics("preprocessing", 0, 0, 0, inlineHandled.get(), inlineFailed.get(), 0, 0);
        }
        return stage.metrics();
    }

    @Override
    public void close() {
        if (stage != null) {
            stage.close();
        }
    }
}
