package org.xtreemfs.osd.locks;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.xtreemfs.foundation.clock.Clock;

/**
 * Every file's lock table on this OSD, bounded in locks per file and in total, and the clients' leases. A client's
 * lease is extended by each of its lock calls and renewals; when it runs out, all its locks are dropped (a crashed
 * mount does not hold locks forever). Expired leases are collected at the start of every call, before any
 * conflict is decided, so an expired lock never blocks anyone. Thread-safe (one monitor: every call is a few list
 * operations on one file).
 */
public final class LockManager {
    /** What an acquire or release did. */
    public sealed interface Outcome {
        record Done() implements Outcome {}

        /** Another owner's lock keeps the wanted one from being granted. */
        record Conflict(HeldLock holder) implements Outcome {}

        /** The change would exceed a bound; {@code message} names it. */
        record TooManyLocks(String message) implements Outcome {}
    }

    private static final Outcome DONE = new Outcome.Done();

    /** A client with at least one lock on this OSD. */
    private static final class Client {
        long leaseEndMs;
        final Set<String> fileIds = new HashSet<>();
    }

    private final Clock clock;
    private final long leaseMs;
    private final int locksPerFileMax;
    private final int locksMax;
    private final Map<String, FileLockTable> files = new HashMap<>();
    /** In order of lease end: every touch moves a client to the end, and all leases have the same length. */
    private final LinkedHashMap<String, Client> clients = new LinkedHashMap<>(16, 0.75f, false);
    private int lockCount;
    private long expiredClientCount;

    public LockManager(Clock clock, long leaseMs, int locksPerFileMax, int locksMax) {
        if (leaseMs <= 0 || locksPerFileMax <= 0 || locksMax <= 0) {
            throw new IllegalArgumentException("lease and bounds must be positive: leaseMs " + leaseMs
                    + ", locksPerFileMax " + locksPerFileMax + ", locksMax " + locksMax);
        }
        this.clock = clock;
        this.leaseMs = leaseMs;
        this.locksPerFileMax = locksPerFileMax;
        this.locksMax = locksMax;
    }

    public long leaseMs() {
        return leaseMs;
    }

    /** Grants {@code wanted} unless another owner's lock conflicts or a bound would be exceeded. */
    public synchronized Outcome acquire(String fileId, HeldLock wanted) {
        long nowMs = clock.monotonicMillis();
        expireLeases(nowMs);
        renewIfKnown(wanted.owner().clientUuid(), nowMs);
        FileLockTable table = files.computeIfAbsent(fileId, id -> new FileLockTable());
        Optional<HeldLock> conflict = table.conflict(wanted);
        if (conflict.isPresent()) {
            dropIfEmpty(fileId, table);
            return new Outcome.Conflict(conflict.get());
        }
        return apply(fileId, table, table.afterAcquire(wanted), nowMs);
    }

    /** The lock of another owner that would keep {@code wanted} from being granted now, if any. */
    public synchronized Optional<HeldLock> check(String fileId, HeldLock wanted) {
        long nowMs = clock.monotonicMillis();
        expireLeases(nowMs);
        renewIfKnown(wanted.owner().clientUuid(), nowMs);
        FileLockTable table = files.get(fileId);
        return table == null ? Optional.empty() : table.conflict(wanted);
    }

    /**
     * Unlocks the owner's POSIX range [startBytes, endBytes) or, for FLOCK, its flock lock. Unlocking the middle of
     * a range splits it, so even a release can hit the bounds.
     */
    public synchronized Outcome release(String fileId, LockOwner owner, LockKind kind, long startBytes,
            long endBytes) {
        long nowMs = clock.monotonicMillis();
        expireLeases(nowMs);
        renewIfKnown(owner.clientUuid(), nowMs);
        FileLockTable table = files.get(fileId);
        if (table == null) {
            return DONE;
        }
        return apply(fileId, table, table.afterRelease(owner, kind, startBytes, endBytes), nowMs);
    }

    /** Extends the client's lease; returns how many locks it holds on this OSD (0: none, or its lease ran out). */
    public synchronized int renew(String clientUuid) {
        long nowMs = clock.monotonicMillis();
        expireLeases(nowMs);
        Client client = renewIfKnown(clientUuid, nowMs);
        if (client == null) {
            return 0;
        }
        int held = 0;
        for (String fileId : client.fileIds) {
            for (HeldLock lock : files.get(fileId).locks()) {
                if (lock.owner().clientUuid().equals(clientUuid)) {
                    held++;
                }
            }
        }
        return held;
    }

    /** The locks of one file, in file order (for tests and the status page). */
    public synchronized List<HeldLock> locksOf(String fileId) {
        expireLeases(clock.monotonicMillis());
        FileLockTable table = files.get(fileId);
        return table == null ? List.of() : table.locks();
    }

    /** Locks held on this OSD, after dropping those of expired leases. */
    public synchronized int lockCount() {
        expireLeases(clock.monotonicMillis());
        return lockCount;
    }

    public synchronized int clientCount() {
        expireLeases(clock.monotonicMillis());
        return clients.size();
    }

    /** Clients whose lease ran out while they held locks, since start. */
    public synchronized long expiredClientCount() {
        return expiredClientCount;
    }

    private Outcome apply(String fileId, FileLockTable table, List<HeldLock> next, long nowMs) {
        int growth = next.size() - table.size();
        if (growth > 0 && next.size() > locksPerFileMax) {
            dropIfEmpty(fileId, table);
            return new Outcome.TooManyLocks("file " + fileId + " would hold " + next.size() + " locks, more than "
                    + locksPerFileMax + " (osd.locks.perFileMax)");
        }
        if (growth > 0 && lockCount + growth > locksMax) {
            dropIfEmpty(fileId, table);
            return new Outcome.TooManyLocks("this OSD would hold " + (lockCount + growth) + " locks, more than "
                    + locksMax + " (osd.locks.max)");
        }
        Set<String> touchedClients = new HashSet<>();
        table.locks().forEach(lock -> touchedClients.add(lock.owner().clientUuid()));
        next.forEach(lock -> touchedClients.add(lock.owner().clientUuid()));
        table.replace(next);
        lockCount += growth;
        for (String clientUuid : touchedClients) {
            boolean holds = next.stream().anyMatch(lock -> lock.owner().clientUuid().equals(clientUuid));
            Client client = clients.get(clientUuid);
            if (holds && client == null) {
                client = new Client();
                client.leaseEndMs = nowMs + leaseMs;
                clients.put(clientUuid, client);
            }
            if (client == null) {
                continue;
            }
            if (holds) {
                client.fileIds.add(fileId);
            } else {
                client.fileIds.remove(fileId);
                if (client.fileIds.isEmpty()) {
                    clients.remove(clientUuid);
                }
            }
        }
        dropIfEmpty(fileId, table);
        return DONE;
    }

    private Client renewIfKnown(String clientUuid, long nowMs) {
        Client client = clients.remove(clientUuid);
        if (client != null) {
            client.leaseEndMs = nowMs + leaseMs;
            clients.put(clientUuid, client);  // re-inserted last: the map stays in lease-end order
        }
        return client;
    }

    /** Drops the locks of every client whose lease ended; those are at the head of {@link #clients}. */
    private void expireLeases(long nowMs) {
        for (Iterator<Map.Entry<String, Client>> it = clients.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, Client> entry = it.next();
            if (entry.getValue().leaseEndMs > nowMs) {
                return;
            }
            it.remove();
            expiredClientCount++;
            for (String fileId : entry.getValue().fileIds) {
                FileLockTable table = files.get(fileId);
                List<HeldLock> remaining = table.withoutClient(entry.getKey());
                lockCount -= table.size() - remaining.size();
                table.replace(remaining);
                dropIfEmpty(fileId, table);
            }
        }
    }

    private void dropIfEmpty(String fileId, FileLockTable table) {
        if (table.size() == 0) {
            files.remove(fileId, table);
        }
    }
}
