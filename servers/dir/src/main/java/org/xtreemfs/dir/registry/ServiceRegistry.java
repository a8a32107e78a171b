package org.xtreemfs.dir.registry;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.kv.Durability;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.Keys;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvException;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.foundation.kv.WriteBatch;
import org.xtreemfs.foundation.address.RpcScheme;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;

/**
 * Services (type, name, status, attributes, heartbeat time, version) and their address mappings, keyed
 * by service UUID. Thread-safe (one monitor). Invariants: a service's version and its mappings' version
 * only grow, also across restarts; a stored status is never DEAD, because DEAD is what the DIR reports
 * for a service whose last heartbeat is more than {@code heartbeatTimeoutMs} old by the DIR's wall clock.
 *
 * <p>Heartbeat age is measured on the wall clock because {@code last_heartbeat_ms} is persisted and must
 * mean the same after a restart; a forward jump of the DIR's clock larger than the timeout reports
 * services DEAD until their next heartbeat, which heals it within one heartbeat period.
 */
public final class ServiceRegistry {
    /** Bounds the identifiers a service sends, so a bad client cannot grow the registry's keys without limit. */
    static final int IDENTIFIER_LENGTH_MAX = 1024;

    private static final byte[] SERVICE_PREFIX = Keys.utf8("service/");
    private static final byte[] MAPPING_PREFIX = Keys.utf8("mapping/");

    private record VersionedMappings(long version, AddressMappingSet mappings) {}

    private final KvStore store;
    private final Clock clock;
    private final long heartbeatTimeoutMs;
    /** Services as registered (status never DEAD), by UUID. */
    private final Map<String, Service> servicesByUuid = new TreeMap<>();
    private final Map<String, VersionedMappings> mappingsByUuid = new TreeMap<>();

    /** Loads every service and mapping the store holds. */
    public ServiceRegistry(KvStore store, Clock clock, long heartbeatTimeoutMs) {
        if (heartbeatTimeoutMs <= 0) {
            throw new IllegalArgumentException("heartbeatTimeoutMs must be positive: " + heartbeatTimeoutMs);
        }
        this.store = store;
        this.clock = clock;
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
        try (KvIterator services = store.iterator(KeyRange.prefix(SERVICE_PREFIX))) {
            while (services.hasNext()) {
                KvEntry entry = services.next();
                Service service = parseService(entry);
                servicesByUuid.put(service.getUuid(), service);
            }
        }
        try (KvIterator mappings = store.iterator(KeyRange.prefix(MAPPING_PREFIX))) {
            while (mappings.hasNext()) {
                KvEntry entry = mappings.next();
                VersionedMappings versioned = parseMappings(entry);
                mappingsByUuid.put(versioned.mappings().getMappings(0).getUuid(), versioned);
            }
        }
    }

    public long heartbeatTimeoutMs() {
        return heartbeatTimeoutMs;
    }

    /**
     * Registers a service or refreshes it (the heartbeat): stores what it sent, stamps
     * {@code last_heartbeat_ms} with the DIR's clock and increments the version.
     *
     * @return the service's new version
     */
    public synchronized long register(Service service) throws RegistryException {
        String uuid = checkIdentifier("service uuid", service.getUuid());
        if (service.getType() == ServiceType.SERVICE_TYPE_UNSPECIFIED
                || service.getType() == ServiceType.UNRECOGNIZED) {
            throw RegistryException.invalid("service '" + uuid + "' has no valid type ("
                    + service.getTypeValue() + ")");
        }
        if (service.getStatus() == ServiceStatus.SERVICE_STATUS_DEAD
                || service.getStatus() == ServiceStatus.UNRECOGNIZED) {
            throw RegistryException.invalid("service '" + uuid + "' sent status " + service.getStatusValue()
                    + "; DEAD is computed by the DIR and never registered");
        }
        if (service.getName().length() > IDENTIFIER_LENGTH_MAX) {
            throw RegistryException.invalid("service '" + uuid + "' has a name longer than "
                    + IDENTIFIER_LENGTH_MAX + " characters");
        }
        Service previous = servicesByUuid.get(uuid);
        if (previous != null && previous.getType() != service.getType()) {
            throw RegistryException.conflict("service uuid '" + uuid + "' is registered as "
                    + previous.getType() + ", not " + service.getType() + "; two services share a uuid?");
        }
        ServiceStatus status = service.getStatus() == ServiceStatus.SERVICE_STATUS_UNSPECIFIED
                ? ServiceStatus.SERVICE_STATUS_AVAILABLE : service.getStatus();
        long version = previous == null ? 1 : previous.getVersion() + 1;
        Service stored = service.toBuilder()
                .setStatus(status)
                .setVersion(version)
                .setLastHeartbeatMs(clock.wallClockMillis())
                .build();
        store.write(new WriteBatch().put(serviceKey(uuid), stored.toByteArray()), Durability.BUFFERED);
        servicesByUuid.put(uuid, stored);
        return version;
    }

    /** Forgets the service and its address mappings; forgetting an unknown service is not an error. */
    public synchronized void deregister(String uuid) throws RegistryException {
        checkIdentifier("service uuid", uuid);
        store.write(new WriteBatch().delete(serviceKey(uuid)).delete(mappingKey(uuid)), Durability.BUFFERED);
        servicesByUuid.remove(uuid);
        mappingsByUuid.remove(uuid);
    }

    /** Records that the service said goodbye; it is reported OFFLINE until it registers again. */
    public synchronized void markOffline(String uuid) throws RegistryException {
        checkIdentifier("service uuid", uuid);
        Service previous = servicesByUuid.get(uuid);
        if (previous == null) {
            throw RegistryException.notFound("no service with uuid '" + uuid + "' is registered");
        }
        Service stored = previous.toBuilder()
                .setStatus(ServiceStatus.SERVICE_STATUS_OFFLINE)
                .setVersion(previous.getVersion() + 1)
                .build();
        store.write(new WriteBatch().put(serviceKey(uuid), stored.toByteArray()), Durability.BUFFERED);
        servicesByUuid.put(uuid, stored);
    }

    /** The service as callers see it (DEAD when its heartbeat is too old), if registered. */
    public synchronized Optional<Service> byUuid(String uuid) {
        Service stored = servicesByUuid.get(uuid);
        return stored == null ? Optional.empty() : Optional.of(reported(stored, clock.wallClockMillis()));
    }

    /** Every service with that name, DEAD and OFFLINE ones included, in UUID order. */
    public synchronized List<Service> byName(String name) {
        long nowMs = clock.wallClockMillis();
        List<Service> result = new ArrayList<>();
        for (Service stored : servicesByUuid.values()) {
            if (stored.getName().equals(name)) {
                result.add(reported(stored, nowMs));
            }
        }
        return result;
    }

    /**
     * Services of one type ({@code SERVICE_TYPE_UNSPECIFIED}: all types) in UUID order. Unless
     * {@code includeDead}, services that cannot serve now (DEAD or OFFLINE) are left out.
     */
    public synchronized List<Service> byType(ServiceType type, boolean includeDead) {
        long nowMs = clock.wallClockMillis();
        List<Service> result = new ArrayList<>();
        for (Service stored : servicesByUuid.values()) {
            if (type != ServiceType.SERVICE_TYPE_UNSPECIFIED && stored.getType() != type) {
                continue;
            }
            Service service = reported(stored, nowMs);
            boolean serving = service.getStatus() != ServiceStatus.SERVICE_STATUS_DEAD
                    && service.getStatus() != ServiceStatus.SERVICE_STATUS_OFFLINE;
            if (serving || includeDead) {
                result.add(service);
            }
        }
        return result;
    }

    /**
     * Replaces the address mappings of one service. Every mapping must name the same UUID; an empty
     * protocol becomes "pbrpc" and an empty match_network "*".
     *
     * @return the new version of that service's mappings
     */
    public synchronized long setAddressMappings(AddressMappingSet mappings) throws RegistryException {
        if (mappings.getMappingsCount() == 0) {
            throw RegistryException.invalid("address mapping set is empty; deregister the service instead");
        }
        String uuid = checkIdentifier("address mapping uuid", mappings.getMappings(0).getUuid());
        AddressMappingSet.Builder normalized = AddressMappingSet.newBuilder();
        for (AddressMapping mapping : mappings.getMappingsList()) {
            if (!mapping.getUuid().equals(uuid)) {
                throw RegistryException.invalid("address mapping set mixes uuids '" + uuid + "' and '"
                        + mapping.getUuid() + "'; send one set per service");
            }
            checkIdentifier("address of service '" + uuid + "'", mapping.getAddress());
            if (mapping.getPort() < 1 || mapping.getPort() > 65_535) {
                throw RegistryException.invalid("address mapping of service '" + uuid + "' has port "
                        + mapping.getPort() + " outside 1..65535");
            }
            AddressMapping.Builder builder = mapping.toBuilder();
            if (builder.getProtocol().isEmpty()) {
                builder.setProtocol(RpcScheme.PBRPC.schemeName()); // what a mapping without one was: plain
            }
            if (builder.getMatchNetwork().isEmpty()) {
                builder.setMatchNetwork("*");
            }
            normalized.addMappings(builder);
        }
        VersionedMappings previous = mappingsByUuid.get(uuid);
        VersionedMappings stored = new VersionedMappings(previous == null ? 1 : previous.version() + 1,
                normalized.build());
        byte[] value = Keys.concat(Keys.longBigEndian(stored.version()), stored.mappings().toByteArray());
        store.write(new WriteBatch().put(mappingKey(uuid), value), Durability.BUFFERED);
        mappingsByUuid.put(uuid, stored);
        return stored.version();
    }

    /** The service's address mappings; empty when none are known. */
    public synchronized AddressMappingSet addressMappings(String uuid) {
        VersionedMappings stored = mappingsByUuid.get(uuid);
        return stored == null ? AddressMappingSet.getDefaultInstance() : stored.mappings();
    }

    /** Every service as callers see it and every mapping, in UUID order; for the status page. */
    public synchronized List<Service> allServices() {
        return byType(ServiceType.SERVICE_TYPE_UNSPECIFIED, true);
    }

    public synchronized Map<String, AddressMappingSet> allAddressMappings() {
        Map<String, AddressMappingSet> result = new TreeMap<>();
        mappingsByUuid.forEach((uuid, versioned) -> result.put(uuid, versioned.mappings()));
        return result;
    }

    /** The stored service with the status callers see at {@code nowMs}. */
    private Service reported(Service stored, long nowMs) {
        if (stored.getStatus() == ServiceStatus.SERVICE_STATUS_OFFLINE) {
            return stored;
        }
        long silenceMs = nowMs - stored.getLastHeartbeatMs();
        if (silenceMs > heartbeatTimeoutMs) {
            return stored.toBuilder().setStatus(ServiceStatus.SERVICE_STATUS_DEAD).build();
        }
        return stored;
    }

    static String checkIdentifier(String what, String value) throws RegistryException {
        if (value.isEmpty()) {
            throw RegistryException.invalid(what + " is empty");
        }
        if (value.length() > IDENTIFIER_LENGTH_MAX) {
            throw RegistryException.invalid(what + " '" + value.substring(0, 40) + "...' is longer than "
                    + IDENTIFIER_LENGTH_MAX + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw RegistryException.invalid(what + " '" + value.replaceAll("\\p{Cntrl}", "?")
                        + "' contains a control character");
            }
        }
        return value;
    }

    private static byte[] serviceKey(String uuid) {
        return Keys.concat(SERVICE_PREFIX, Keys.utf8(uuid));
    }

    private static byte[] mappingKey(String uuid) {
        return Keys.concat(MAPPING_PREFIX, Keys.utf8(uuid));
    }

    private static Service parseService(KvEntry entry) {
        try {
            return Service.parseFrom(entry.value());
        } catch (InvalidProtocolBufferException e) {
            throw new KvException("corrupt service record at key " + Keys.toDebugString(entry.key()), e);
        }
    }

    private static VersionedMappings parseMappings(KvEntry entry) {
        byte[] value = entry.value();
        try {
            if (value.length < Long.BYTES) {
                throw new InvalidProtocolBufferException("record shorter than its version");
            }
            long version = ByteBuffer.wrap(value).getLong();
            AddressMappingSet mappings = AddressMappingSet.parseFrom(Arrays.copyOfRange(value, Long.BYTES,
                    value.length));
            if (mappings.getMappingsCount() == 0) {
                throw new InvalidProtocolBufferException("empty mapping set");
            }
            return new VersionedMappings(version, mappings);
        } catch (InvalidProtocolBufferException e) {
            throw new KvException("corrupt address mapping record at key " + Keys.toDebugString(entry.key()), e);
        }
    }
}
