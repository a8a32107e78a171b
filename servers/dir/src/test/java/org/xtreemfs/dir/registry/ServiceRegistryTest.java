package org.xtreemfs.dir.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.interfaces.common.DeviceClass;
import org.xtreemfs.interfaces.common.OsdUsageType;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceStatus;
import org.xtreemfs.interfaces.dir.ServiceType;

class ServiceRegistryTest {
    private static final long TIMEOUT_MS = 30_000;

    private final ManualClock clock = new ManualClock();
    private final InMemoryKvStore store = new InMemoryKvStore();
    private final ServiceRegistry registry = new ServiceRegistry(store, clock, TIMEOUT_MS);

    static Service osd(String uuid, long freeBytes) {
        return Service.newBuilder()
                .setType(ServiceType.SERVICE_TYPE_OSD)
                .setUuid(uuid)
                .setName("osd-" + uuid)
                .setStatus(ServiceStatus.SERVICE_STATUS_AVAILABLE)
                .setOsdAttributes(OsdAttributes.newBuilder()
                        .setUsageType(OsdUsageType.OSD_SEQUENTIAL)
                        .setDeviceClass(DeviceClass.HDD)
                        .setFreeBytes(freeBytes)
                        .setTotalBytes(1L << 40)
                        .setLoadPercent(7))
                .build();
    }

    static Service mrc(String uuid) {
        return Service.newBuilder().setType(ServiceType.SERVICE_TYPE_MRC).setUuid(uuid).setName("mrc").build();
    }

    // Re-registration is the heartbeat: it restamps last_heartbeat_ms from the DIR's clock, bumps the version and replaces the attributes.
    @Test
    void heartbeatRestampsTimeIncrementsVersionAndReplacesAttributes() throws Exception {
        long startMs = clock.wallClockMillis();
        assertThat(registry.register(osd("o1", 100).toBuilder().setLastHeartbeatMs(5).setVersion(99).build()))
                .isEqualTo(1);
        clock.advanceMillis(4_000);
        assertThat(registry.register(osd("o1", 50))).isEqualTo(2);

        Service reported = registry.byUuid("o1").orElseThrow();
        assertThat(reported.getVersion()).isEqualTo(2);
        assertThat(reported.getLastHeartbeatMs()).isEqualTo(startMs + 4_000);
        assertThat(reported.getOsdAttributes().getFreeBytes()).isEqualTo(50);
        assertThat(reported.getStatus()).isEqualTo(ServiceStatus.SERVICE_STATUS_AVAILABLE);
    }

    // A service is DEAD exactly when more than the timeout passed since its last heartbeat, and a heartbeat revives it.
    @Test
    void serviceIsDeadAfterTimeoutWithoutHeartbeatAndAliveAgainAfterOne() throws Exception {
        registry.register(osd("o1", 100));
        clock.advanceMillis(TIMEOUT_MS);
        assertThat(registry.byUuid("o1").orElseThrow().getStatus()).isEqualTo(ServiceStatus.SERVICE_STATUS_AVAILABLE);

        clock.advanceMillis(1);
        assertThat(registry.byUuid("o1").orElseThrow().getStatus()).isEqualTo(ServiceStatus.SERVICE_STATUS_DEAD);
        assertThat(registry.byType(ServiceType.SERVICE_TYPE_OSD, false)).isEmpty();
        assertThat(registry.byType(ServiceType.SERVICE_TYPE_OSD, true))
                .extracting(Service::getStatus).containsExactly(ServiceStatus.SERVICE_STATUS_DEAD);

        registry.register(osd("o1", 100));
        assertThat(registry.byType(ServiceType.SERVICE_TYPE_OSD, false))
                .extracting(Service::getStatus).containsExactly(ServiceStatus.SERVICE_STATUS_AVAILABLE);
    }

    // Only the silent service is reported dead; others with recent heartbeats stay in get-by-type.
    @Test
    void deadMarkingIsPerService() throws Exception {
        registry.register(osd("o1", 100));
        clock.advanceMillis(20_000);
        registry.register(osd("o2", 100));
        registry.register(mrc("m1"));
        clock.advanceMillis(15_000);

        assertThat(registry.byType(ServiceType.SERVICE_TYPE_OSD, false)).extracting(Service::getUuid)
                .containsExactly("o2");
        assertThat(registry.byType(ServiceType.SERVICE_TYPE_UNSPECIFIED, false)).extracting(Service::getUuid)
                .containsExactly("m1", "o2");
        assertThat(registry.allServices()).extracting(Service::getUuid).containsExactly("m1", "o1", "o2");
    }

    // A service that went offline is reported OFFLINE (not DEAD) and left out of get-by-type until it registers again.
    @Test
    void offlineServiceIsExcludedUntilItRegistersAgain() throws Exception {
        registry.register(osd("o1", 100));
        registry.markOffline("o1");
        Service offline = registry.byUuid("o1").orElseThrow();
        assertThat(offline.getStatus()).isEqualTo(ServiceStatus.SERVICE_STATUS_OFFLINE);
        assertThat(offline.getVersion()).isEqualTo(2);
        clock.advanceMillis(TIMEOUT_MS * 2);
        assertThat(registry.byUuid("o1").orElseThrow().getStatus()).isEqualTo(ServiceStatus.SERVICE_STATUS_OFFLINE);
        assertThat(registry.byType(ServiceType.SERVICE_TYPE_OSD, false)).isEmpty();

        assertThat(registry.register(osd("o1", 100))).isEqualTo(3);
        assertThat(registry.byType(ServiceType.SERVICE_TYPE_OSD, false)).hasSize(1);
    }

    // Offline of an unknown uuid is ENOENT-like and names the uuid; deregistering an unknown uuid is harmless.
    @Test
    void offlineOfUnknownServiceNamesIt() throws Exception {
        assertThatThrownBy(() -> registry.markOffline("ghost"))
                .isInstanceOf(RegistryException.class).hasMessageContaining("'ghost'")
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.NOT_FOUND);
        registry.deregister("ghost");
    }

    // Malformed registrations are refused with a message naming the bad value, and nothing is stored.
    @Test
    void malformedRegistrationsAreRefused() throws Exception {
        assertInvalid(() -> registry.register(osd("", 1)), "service uuid is empty");
        assertInvalid(() -> registry.register(osd("o1", 1).toBuilder()
                .setType(ServiceType.SERVICE_TYPE_UNSPECIFIED).build()), "'o1' has no valid type");
        assertInvalid(() -> registry.register(osd("o1", 1).toBuilder()
                .setStatus(ServiceStatus.SERVICE_STATUS_DEAD).build()), "DEAD");
        assertInvalid(() -> registry.register(osd("o\n1", 1)), "control character");
        assertThat(registry.allServices()).isEmpty();
    }

    // A uuid registered as one type cannot be re-registered as another: two services sharing a uuid is a conflict.
    @Test
    void uuidCannotChangeType() throws Exception {
        registry.register(osd("same", 1));
        assertThatThrownBy(() -> registry.register(mrc("same")))
                .isInstanceOf(RegistryException.class).hasMessageContaining("'same'")
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.CONFLICT);
    }

    // Status UNSPECIFIED is registered as AVAILABLE; get-by-name returns every service of that name.
    @Test
    void unspecifiedStatusMeansAvailableAndNamesAreSearchable() throws Exception {
        registry.register(mrc("m1"));
        registry.register(mrc("m2"));
        registry.register(osd("o1", 1));
        assertThat(registry.byName("mrc")).extracting(Service::getUuid).containsExactly("m1", "m2");
        assertThat(registry.byName("mrc")).extracting(Service::getStatus)
                .containsOnly(ServiceStatus.SERVICE_STATUS_AVAILABLE);
        assertThat(registry.byName("nobody")).isEmpty();
    }

    // Address mappings are replaced per uuid with a growing version, normalized, and removed by deregistration.
    @Test
    void addressMappingsAreVersionedNormalizedAndRemovedWithTheService() throws Exception {
        registry.register(osd("o1", 1));
        assertThat(registry.setAddressMappings(mappings("o1", "host-a", 32640))).isEqualTo(1);
        assertThat(registry.setAddressMappings(mappings("o1", "host-b", 32641))).isEqualTo(2);
        AddressMapping mapping = registry.addressMappings("o1").getMappings(0);
        assertThat(mapping.getAddress()).isEqualTo("host-b");
        assertThat(mapping.getPort()).isEqualTo(32641);
        assertThat(mapping.getProtocol()).isEqualTo("pbrpc");
        assertThat(mapping.getMatchNetwork()).isEqualTo("*");
        assertThat(registry.addressMappings("o1").getMappingsCount()).isEqualTo(1);

        registry.deregister("o1");
        assertThat(registry.addressMappings("o1").getMappingsCount()).isZero();
        assertThat(registry.byUuid("o1")).isEmpty();
    }

    // Mapping sets that are empty, mix uuids or carry a bad port are refused naming the problem.
    @Test
    void malformedAddressMappingsAreRefused() {
        assertInvalid(() -> registry.setAddressMappings(AddressMappingSet.getDefaultInstance()), "empty");
        assertInvalid(() -> registry.setAddressMappings(mappings("o1", "h", 0)), "port 0");
        assertInvalid(() -> registry.setAddressMappings(mappings("o1", "", 1)), "address of service 'o1' is empty");
        AddressMappingSet mixed = mappings("o1", "h", 1).toBuilder()
                .addMappings(AddressMapping.newBuilder().setUuid("o2").setAddress("h").setPort(2)).build();
        assertInvalid(() -> registry.setAddressMappings(mixed), "'o2'");
    }

    // Services, versions, heartbeat times and mappings are reloaded from the store by a new registry.
    @Test
    void stateSurvivesReloadFromTheStore() throws Exception {
        registry.register(osd("o1", 1));
        registry.register(osd("o1", 2));
        registry.setAddressMappings(mappings("o1", "h", 5));
        registry.register(mrc("m1"));
        registry.markOffline("m1");

        ServiceRegistry reloaded = new ServiceRegistry(store, clock, TIMEOUT_MS);
        assertThat(reloaded.allServices()).isEqualTo(registry.allServices());
        assertThat(reloaded.allAddressMappings()).isEqualTo(registry.allAddressMappings());
        assertThat(reloaded.register(osd("o1", 3))).isEqualTo(3);
        assertThat(reloaded.setAddressMappings(mappings("o1", "h", 6))).isEqualTo(2);
    }

    static AddressMappingSet mappings(String uuid, String address, int port) {
        return AddressMappingSet.newBuilder()
                .addMappings(AddressMapping.newBuilder().setUuid(uuid).setAddress(address).setPort(port))
                .build();
    }

    private static void assertInvalid(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String text) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class).hasMessageContaining(text)
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.INVALID);
    }
}
