package org.xtreemfs.dir;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The DIR's layering as the package READMEs state it, checked on the compiled classes. */
class DirArchitectureTest {
    private static final JavaClasses DIR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.xtreemfs.dir");

    // The registry is pure domain logic: no RPC, no Netty, no stages, no status page.
    @Test
    void registryKnowsNothingOfTheNetworkOrStages() {
        noClasses().that().resideInAPackage("org.xtreemfs.dir.registry..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.foundation.rpc..", "io.netty..",
                        "org.xtreemfs.dir.ops..", "org.xtreemfs.dir.stages..", "org.xtreemfs.dir.status..",
                        "org.xtreemfs.foundation.stage..")
                .check(DIR);
    }

    // Handlers run on network threads, so they never reach the KV store or RocksDB themselves.
    @Test
    void opsNeverTouchStorage() {
        noClasses().that().resideInAPackage("org.xtreemfs.dir.ops..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.foundation.kv..", "org.rocksdb..")
                .check(DIR);
    }

    // The DIR never imports the MRC, the OSD or the client.
    @Test
    void dirImportsNoOtherService() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("org.xtreemfs.mrc..", "org.xtreemfs.osd..", "org.xtreemfs.client..")
                .check(DIR);
    }
}
