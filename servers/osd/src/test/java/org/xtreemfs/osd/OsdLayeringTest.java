package org.xtreemfs.osd;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The OSD's request path ops → stages → storage, checked on the compiled production classes. */
class OsdLayeringTest {
    private static JavaClasses production;

    @BeforeAll
    static void importClasses() {
        production = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.xtreemfs.osd");
    }

    // Storage knows nothing of RPC, stages or the server: it can be tested and simulated alone.
    @Test
    void storageDependsOnNoOtherOsdLayerAndNoTransport() {
        noClasses().that().resideInAPackage("org.xtreemfs.osd.storage..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.osd.ops..",
                        "org.xtreemfs.osd.stages..", "org.xtreemfs.osd.heartbeat..", "org.xtreemfs.foundation.rpc..",
                        "io.netty..")
                .check(production);
    }

    // Stages never reach back to the network handlers; ops only parse and queue, never touch the disk.
    @Test
    void stagesDoNotUseOpsAndOpsDoNotUseTheObjectStore() {
        noClasses().that().resideInAPackage("org.xtreemfs.osd.stages..")
                .should().dependOnClassesThat().resideInAPackage("org.xtreemfs.osd.ops..")
                .check(production);
        noClasses().that().resideInAPackage("org.xtreemfs.osd.ops..")
                .should().dependOnClassesThat().haveSimpleName("ObjectStore")
                .orShould().dependOnClassesThat().haveSimpleName("DeletionQueue")
                .check(production);
    }

    // The lock table is a pure domain package like storage: no RPC, no stages, no disk.
    @Test
    void locksDependOnNoOtherOsdLayerAndNoTransport() {
        noClasses().that().resideInAPackage("org.xtreemfs.osd.locks..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.osd.ops..",
                        "org.xtreemfs.osd.stages..", "org.xtreemfs.osd.storage..", "org.xtreemfs.foundation.rpc..",
                        "org.xtreemfs.interfaces..", "io.netty..")
                .check(production);
    }
}
