package org.xtreemfs.dir.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.InMemoryKvStore;
import org.xtreemfs.interfaces.dir.VolumeRegistration;

/** Random register/deregister sequences against a plain map model (and the set of deleted ids); a failing seed reproduces the run. */
class VolumeRegistryModelTest {
    private static final int SEED_COUNT = 20;
    private static final int OPERATIONS_PER_SEED = 400;

    // Whatever the sequence, the registry agrees with the model, names and ids stay one-to-one, and a reload sees the same.
    @Test
    void registryMatchesModelForRandomSequences() throws Exception {
        for (long seed = 1; seed <= SEED_COUNT; seed++) {
            runSeed(seed);
        }
    }

    private static void runSeed(long seed) throws Exception {
        Random random = new Random(seed);
        InMemoryKvStore store = new InMemoryKvStore();
        VolumeRegistry registry = new VolumeRegistry(store);
        Map<String, VolumeRegistration> model = new TreeMap<>();
        Set<String> deletedIds = new HashSet<>();
        for (int step = 0; step < OPERATIONS_PER_SEED; step++) {
            String name = "v" + random.nextInt(8);
            String id = "id" + random.nextInt(24);  // deleted ids are never reused: more ids than names
            String context = "seed " + seed + " step " + step;
            if (random.nextInt(3) > 0) {
                VolumeRegistration volume = VolumeRegistration.newBuilder().setVolumeName(name).setVolumeId(id)
                        .setMrcUuid("mrc" + random.nextInt(2)).build();
                boolean nameFree = !model.containsKey(name) || model.get(name).getVolumeId().equals(id);
                boolean idFree = model.values().stream()
                        .noneMatch(v -> v.getVolumeId().equals(id) && !v.getVolumeName().equals(name));
                boolean expectSuccess = nameFree && idFree && !deletedIds.contains(id);
                assertThat(succeeds(() -> registry.register(volume))).as(context).isEqualTo(expectSuccess);
                if (expectSuccess) {
                    model.put(name, volume);
                }
            } else {
                boolean known = model.containsKey(name);
                assertThat(succeeds(() -> registry.deregister(name))).as(context).isEqualTo(known);
                if (known) {
                    deletedIds.add(model.remove(name).getVolumeId());
                }
            }
            assertThat(registry.list()).as(context).containsExactlyElementsOf(model.values());
            assertThat(registry.deletedVolumeIds()).as(context).containsExactlyInAnyOrderElementsOf(deletedIds);
        }
        assertThat(new VolumeRegistry(store).deletedVolumeIds()).as("seed " + seed + " deleted ids after reload")
                .containsExactlyInAnyOrderElementsOf(deletedIds);
        assertThat(new VolumeRegistry(store).list()).as("seed " + seed + " after reload")
                .containsExactlyElementsOf(new ArrayList<>(model.values()));
    }

    private interface RegistryCall {
        void run() throws RegistryException;
    }

    private static boolean succeeds(RegistryCall call) {
        try {
            call.run();
            return true;
        } catch (RegistryException e) {
            return false;
        }
    }
}
