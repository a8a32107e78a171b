package org.xtreemfs.mrc.ops;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcHandler;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.rpc.RequestHeader;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.admission.OsdReport;
import org.xtreemfs.mrc.registry.OsdDirectory;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;
import org.xtreemfs.mrc.stages.MetadataStage;

/**
 * The shape of every MRC procedure:
 * <ol>
 * <li>on the network thread, parse the request and {@link #prepare} its nondeterministic inputs (caller,
 * clock, DIR data, capability verification; may be asynchronous, never blocking);</li>
 * <li>{@link #apply} it on the metadata stage, one operation at a time (its thread, or this network thread
 * when the stage is idle and batches are not synced: {@link MetadataStage}), or, for a request that
 * {@link #readsOnly only reads}, right there under {@link Namespace#read}: a deterministic function of (context, store) that reads
 * through the namespace core and commits at most one write batch; the operation's logic is a static
 * method of the op class that apply calls with the request's fields;</li>
 * <li>{@link #afterCommit} (e.g. tell the DIR);</li>
 * <li>{@link #answer}: turn the apply step's result into the response, issuing XCaps where the answer
 * carries them (signing reads the clock, so it never happens inside apply).</li>
 * </ol>
 *
 * @param <R> the request message type
 * @param <T> what the apply step produces and the answer is built from
 */
public abstract class MetadataOp<R, T> implements RpcHandler {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataOp.class);

    protected final OpServices services;
    private final String procedure;
    private final Parser<R> parser;
    /** Null for operations that change nothing a repeat could trip over (reads): they are just run again. */
    private final ResultCodec<T> outcomes;

    /** An operation that is run again when repeated (it changes nothing, or only atime). */
    protected MetadataOp(OpServices services, String procedure, Parser<R> parser) {
        this(services, procedure, parser, null);
    }

    /**
     * An operation that changes the store: a request carrying a client id and number is applied exactly once
     * ({@link org.xtreemfs.mrc.metadata.OutcomeJournal}); {@code outcomes} stores its result for the answer of
     * a repeat.
     */
    protected MetadataOp(OpServices services, String procedure, Parser<R> parser, ResultCodec<T> outcomes) {
        this.services = services;
        this.procedure = procedure;
        this.parser = parser;
        this.outcomes = outcomes;
    }

    @Override
    public final void handle(RpcCall call) throws RpcException {
        R request = call.request(parser);
        OperationContext context = OperationContext.of(services.callerIdentity().of(call),
                services.clock().wallClockMillis());
        CompletableFuture<T> applied = then(prepare(context, request), prepared -> readsOnly(request)
                ? readHere(prepared, request)
                : services.metadataStage().submit(procedure, () -> {
                    checkDeadline(call);
                    return applyOnce(call, prepared, request);
                }));
        // handle(), not whenComplete(): its future completes with null, so a failure is not wrapped again.
        then(applied, result -> afterCommit(request, result)).handle((result, error) -> {
            respond(call, result, error);
            return null;
        });
    }

    /**
     * {@code next} applied to the value of {@code stage}: at once when it is complete already (the common case:
     * the OSD list is cached, reads run here, changes apply here while the stage is idle), else when it completes.
     * A failed complete stage is passed on as it is. Why not thenCompose alone: it wraps every failure in a new
     * CompletionException, whose stack trace (the whole Netty stack) was filled in for each ENOENT a lookup of a
     * new name answers, 2.9 % of the MRC's CPU during creates through FUSE.
     */
    @SuppressWarnings("unchecked")
    static <A, B> CompletableFuture<B> then(CompletableFuture<A> stage,
            Function<A, CompletableFuture<B>> next) {
        if (!stage.isDone()) {
            return stage.thenCompose(next);
        }
        if (stage.isCompletedExceptionally()) {
            return (CompletableFuture<B>) (CompletableFuture<?>) stage;
        }
        try {
            return next.apply(stage.join());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Answers the call: the response built from the result, or the error. */
    private void respond(RpcCall call, T result, Throwable error) {
        MessageLite response = null;
        if (error == null) {
            try {
                response = answer(call, result);
            } catch (RpcException | RuntimeException e) {
                error = e;
            }
        }
        services.counters().record(procedure, error != null);
        if (error == null) {
            call.respond(response);
        } else {
            call.fail(toRpcException(error));
        }
    }

    /**
     * Work whose caller stopped waiting is dropped before it changes anything: the caller already
     * treats it as failed, so applying it late would only surprise a retry.
     */
    private void checkDeadline(RpcCall call) throws RpcException {
        long timeoutMs = call.timeoutMs();
        long waitedNanos = System.nanoTime() - call.receivedNanos();
        if (timeoutMs > 0 && waitedNanos > timeoutMs * 1_000_000L) {
            throw RpcException.errno(Errno.ETIMEDOUT, procedure + " waited " + waitedNanos / 1_000_000L
                    + " ms in the MRC's queue, past the caller's timeout of " + timeoutMs + " ms; not applied");
        }
    }

    /**
     * Apply, exactly once per (client id, request number) for a changing operation whose request names them:
     * a repeat after a lost answer gets the first attempt's result (and a freshly built answer from it).
     */
    private T applyOnce(RpcCall call, OperationContext context, R request) throws Exception {
        RequestHeader header = call.requestHeader();
        if (outcomes == null || header.getClientId().isEmpty() || header.getRequestNumber() == 0) {
            return apply(context, request);
        }
        return services.outcomes().applyOnce(header.getClientId(), header.getRequestNumber(),
                header.getProcedureId(), context.nowNanos() / 1_000_000L, () -> apply(context, request),
                outcomes::encode, outcomes::decode);
    }

    /**
     * Whether this request only reads the store: then it is applied on the thread that prepared it (the
     * network thread), concurrently with the metadata thread, under {@link Namespace#read} (it sees the store
     * between two committed batches). A queue hop each way costs more than such a read (a few key lookups in
     * RocksDB's memtable and block cache). Default: no; an override must be true only for requests whose apply
     * step writes nothing (the namespace refuses a write under its read side).
     */
    protected boolean readsOnly(R request) {
        return false;
    }

    private CompletableFuture<T> readHere(OperationContext context, R request) {
        try {
            return CompletableFuture.completedFuture(services.namespace().read(() -> apply(context, request)));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Gathers nondeterministic inputs; the default needs nothing beyond caller and clock. */
    protected CompletableFuture<OperationContext> prepare(OperationContext context, R request) {
        return CompletableFuture.completedFuture(context);
    }

    /** Same as {@link #prepare} for operations that place files or report space: adds the online OSDs. */
    protected final CompletableFuture<OperationContext> withOsds(OperationContext context) {
        return services.osds().current().thenApply(context::withOsds);
    }

    /** Same as {@link #prepare} for admissions: adds every OSD the DIR knows, fresh, with profile and liveness. */
    protected final CompletableFuture<OperationContext> withOsdReports(OperationContext context) {
        return services.osds().allForAdmission().thenApply(osds -> context.withOsdReports(OsdReport.of(osds)));
    }

    /**
     * Same as {@link #prepare} for a chain's re-formation: one fresh DIR listing gives both every OSD's liveness
     * (the reports) and the AVAILABLE ones as placement candidates for a replacement.
     */
    protected final CompletableFuture<OperationContext> withFreshOsds(OperationContext context) {
        return services.osds().allForAdmission().thenApply(osds -> context.withOsdReports(OsdReport.of(osds))
                .withOsds(OsdDirectory.available(osds)));
    }

    /**
     * Same as {@link #prepare} for operations on an open file: checks the XCap's signature and expiry (which
     * reads the clock) before the operation is queued; AUTH_FAILED otherwise. Apply then only parses its
     * file id.
     */
    protected final CompletableFuture<OperationContext> withVerifiedCapability(OperationContext context,
            XCap capability, boolean requireWrite) {
        try {
            services.capabilities().verify(capability, requireWrite);
            return CompletableFuture.completedFuture(context);
        } catch (RpcException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The volume as answers show it, with its admitted placement and the OSDs of it that the prepared OSD
     * list does not show available (so the caller must have prepared one: {@link #withOsds} or
     * {@link #withOsdReports}). Runs in apply: it reads the ledger.
     */
    protected final Volume described(Volume volume, OperationContext context) {
        Set<String> available = new HashSet<>();
        context.osds().forEach(osd -> available.add(osd.uuid()));
        context.osdReports().stream().filter(OsdReport::available).forEach(osd -> available.add(osd.uuid()));
        Set<String> unavailable = new HashSet<>();
        for (String uuid : services.ledger().replicaOsds(volume.getId()).map(ReservedReplicas::flatten)
                .orElse(List.of())) {
            if (!available.contains(uuid)) {
                unavailable.add(uuid);
            }
        }
        return services.ledger().describe(volume, unavailable);
    }

    /** Runs in the metadata stage (one operation at a time); all store changes in one batch; reads no clock and no random source. */
    protected abstract T apply(OperationContext context, R request) throws Exception;

    protected CompletableFuture<T> afterCommit(R request, T result) {
        return CompletableFuture.completedFuture(result);
    }

    /** The response to the caller from the apply step's result; issues the XCaps the answer carries. */
    protected abstract MessageLite answer(RpcCall call, T result) throws RpcException;

    static RpcException toRpcException(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RpcException rpcException) {
            return rpcException;
        }
        LOG.error("MRC operation failed", cause);
        return RpcException.internal("MRC internal error: " + cause);
    }
}
