package org.xtreemfs.dir.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.interfaces.dir.VolumeRegistration;

class VolumeRegistryTest {
    private final InMemoryKvStore store = new InMemoryKvStore();
    private final VolumeRegistry registry = new VolumeRegistry(store);

    static VolumeRegistration volume(String id, String name, String mrcUuid) {
        return VolumeRegistration.newBuilder().setVolumeId(id).setVolumeName(name).setMrcUuid(mrcUuid).build();
    }

    // Registered volumes are found by name and listed in name order; deregistration forgets them.
    @Test
    void registerGetListDeregister() throws Exception {
        registry.register(volume("id-b", "beta", "mrc-1"));
        registry.register(volume("id-a", "alpha", "mrc-1"));
        assertThat(registry.get("beta").getVolumeId()).isEqualTo("id-b");
        assertThat(registry.list()).extracting(VolumeRegistration::getVolumeName).containsExactly("alpha", "beta");

        registry.deregister("beta");
        assertThat(registry.list()).extracting(VolumeRegistration::getVolumeName).containsExactly("alpha");
        assertNotFound(() -> registry.get("beta"), "'beta'");
    }

    // A name taken by another id is a conflict naming both ids; re-registering the same id may move it to another MRC.
    @Test
    void nameTakenByAnotherIdConflictsButSameIdMayUpdate() throws Exception {
        registry.register(volume("id-1", "data", "mrc-1"));
        assertThatThrownBy(() -> registry.register(volume("id-2", "data", "mrc-1")))
                .isInstanceOf(RegistryException.class).hasMessageContaining("'data'").hasMessageContaining("'id-1'")
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.CONFLICT);

        registry.register(volume("id-1", "data", "mrc-2"));
        assertThat(registry.get("data").getMrcUuid()).isEqualTo("mrc-2");
    }

    // An id registered under one name cannot be registered under a second name.
    @Test
    void idUnderAnotherNameConflicts() throws Exception {
        registry.register(volume("id-1", "data", "mrc-1"));
        assertThatThrownBy(() -> registry.register(volume("id-1", "other", "mrc-1")))
                .isInstanceOf(RegistryException.class).hasMessageContaining("'id-1'")
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.CONFLICT);
        registry.register(volume("id-2", "other", "mrc-1"));
        assertThat(registry.get("other").getVolumeId()).isEqualTo("id-2");
    }

    // A deregistered (deleted) volume's id is kept for the OSDs, survives a restart and is never registered again.
    @Test
    void deletedIdsAreKeptAndNeverRegisteredAgain() throws Exception {
        registry.register(volume("id-1", "data", "mrc-1"));
        registry.register(volume("id-2", "more", "mrc-1"));
        registry.deregister("more");
        registry.deregister("data");
        assertThat(registry.deletedVolumeIds()).containsExactly("id-2", "id-1");
        assertThatThrownBy(() -> registry.register(volume("id-1", "data", "mrc-1")))
                .isInstanceOf(RegistryException.class).hasMessageContaining("'id-1'").hasMessageContaining("deleted")
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.CONFLICT);
        registry.register(volume("id-3", "data", "mrc-1"));  // the name is free again, with a new id

        VolumeRegistry reloaded = new VolumeRegistry(store);
        assertThat(reloaded.deletedVolumeIds()).containsExactly("id-2", "id-1");
        assertThat(reloaded.get("data").getVolumeId()).isEqualTo("id-3");
    }

    // Only the newest deleted ids are kept: the oldest is forgotten, in memory and in the store.
    @Test
    void deletedIdsAreBounded() throws Exception {
        for (int index = 0; index <= VolumeRegistry.DELETED_VOLUMES_KEPT; index++) {
            registry.register(volume("id-" + index, "v" + index, "mrc-1"));
            registry.deregister("v" + index);
        }
        assertThat(registry.deletedVolumeIds()).hasSize(VolumeRegistry.DELETED_VOLUMES_KEPT)
                .doesNotContain("id-0").startsWith("id-1").endsWith("id-" + VolumeRegistry.DELETED_VOLUMES_KEPT);
        assertThat(new VolumeRegistry(store).deletedVolumeIds()).isEqualTo(registry.deletedVolumeIds());
    }

    // Unknown volumes are NOT_FOUND naming the volume, for get and deregister alike.
    @Test
    void unknownVolumeIsNotFoundNamingIt() {
        assertNotFound(() -> registry.get("nope"), "'nope'");
        assertNotFound(() -> registry.deregister("nope"), "'nope'");
    }

    // Invalid names and missing ids are refused naming the value.
    @Test
    void invalidVolumesAreRefused() {
        assertInvalid(() -> registry.register(volume("id", "a/b", "m")), "'a/b'");
        assertInvalid(() -> registry.register(volume("id", "..", "m")), "'..'");
        assertInvalid(() -> registry.register(volume("id", "", "m")), "volume name is empty");
        assertInvalid(() -> registry.register(volume("id", "x".repeat(256), "m")), "longer than 255");
        assertInvalid(() -> registry.register(volume("", "v", "m")), "id of volume 'v' is empty");
        assertInvalid(() -> registry.register(volume("id", "v", "")), "MRC uuid of volume 'v' is empty");
        assertThat(registry.list()).isEmpty();
    }

    // A new registry on the same store sees every volume and still enforces id uniqueness.
    @Test
    void volumesSurviveReload() throws Exception {
        registry.register(volume("id-1", "data", "mrc-1"));
        VolumeRegistry reloaded = new VolumeRegistry(store);
        assertThat(reloaded.list()).isEqualTo(registry.list());
        assertThatThrownBy(() -> reloaded.register(volume("id-1", "other", "mrc-1")))
                .isInstanceOf(RegistryException.class);
    }

    private static void assertNotFound(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String text) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class).hasMessageContaining(text)
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.NOT_FOUND);
    }

    private static void assertInvalid(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String text) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class).hasMessageContaining(text)
                .extracting(e -> ((RegistryException) e).reason()).isEqualTo(RegistryException.Reason.INVALID);
    }
}
