package org.xtreemfs.integration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module dependency rule of shape.md, checked on the production classes of every module (tests may import
 * anything): interface <- foundation <- dir | mrc | osd | client; qos depends on the JDK only.
 */
class DependencyRuleTest {
    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = new ClassFileImporter()
                .withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages("org.xtreemfs");
    }

    // The client library and tools use the servers only through the wire contract and foundation's stubs.
    @Test
    void clientDependsOnNoServer() {
        noClasses().that().resideInAPackage("org.xtreemfs.client..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.dir..", "org.xtreemfs.mrc..",
                        "org.xtreemfs.osd..")
                .check(production);
    }

    // DIR, MRC and OSD never import each other.
    @Test
    void serversDoNotImportEachOther() {
        noClasses().that().resideInAPackage("org.xtreemfs.dir..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.mrc..", "org.xtreemfs.osd..")
                .check(production);
        noClasses().that().resideInAPackage("org.xtreemfs.mrc..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.dir..", "org.xtreemfs.osd..")
                .check(production);
        noClasses().that().resideInAPackage("org.xtreemfs.osd..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.dir..", "org.xtreemfs.mrc..")
                .check(production);
    }

    // The foundation serves every module and depends on none of them.
    @Test
    void foundationDependsOnNoService() {
        noClasses().that().resideInAPackage("org.xtreemfs.foundation..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.dir..", "org.xtreemfs.mrc..",
                        "org.xtreemfs.osd..", "org.xtreemfs.client..", "org.xtreemfs.qos..")
                .check(production);
    }

    // The QoS library is pure: the JDK only (no netty, no protobuf, no foundation).
    @Test
    void qosDependsOnTheJdkOnly() {
        classes().that().resideInAPackage("org.xtreemfs.qos..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.xtreemfs.qos..")
                .allowEmptyShould(true)
                .check(production);
    }
}
