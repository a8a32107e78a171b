package org.xtreemfs.mrc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

class MrcArchitectureTest {
    private final JavaClasses mrc = new ClassFileImporter()
            .withImportOption(location -> !location.contains("/test-classes/")) // target-<suffix>/ too
            .importPackages("org.xtreemfs.mrc");

    @Test
    void mrcNeverImportsTheOtherServices() {
        // The dependency rule: dir, mrc and osd never import each other.
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.dir..", "org.xtreemfs.osd..")
                .check(mrc);
    }

    @Test
    void coresStayPure() {
        // Placement and metadata know nothing of sockets, stages or the server wiring.
        noClasses().that().resideInAnyPackage("org.xtreemfs.mrc.placement..", "org.xtreemfs.mrc.metadata..")
                .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "org.xtreemfs.foundation.stage..",
                        "org.xtreemfs.foundation.stubs..", "org.xtreemfs.mrc.ops..", "org.xtreemfs.mrc.stages..",
                        "org.xtreemfs.mrc.registry..")
                .check(mrc);
        noClasses().that().resideInAPackage("org.xtreemfs.mrc.placement..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.foundation.kv..",
                        "org.xtreemfs.mrc.metadata..")
                .check(mrc);
    }
}
