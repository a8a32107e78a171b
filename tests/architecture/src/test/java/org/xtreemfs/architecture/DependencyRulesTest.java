package org.xtreemfs.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency rule of ARCHITECTURE.md, checked on the compiled production code:
 * interface <- foundation <- dir | mrc | osd | client; qos <- foundation (its wire codec only) | mrc | osd | client;
 * qos depends on the JDK only;
 * dir, mrc and osd never import each other.
 */
class DependencyRulesTest {
    private static JavaClasses production;

    @BeforeAll
    static void importClasses() {
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.xtreemfs");
    }

    // The QoS library uses nothing but the JDK and itself, so the OSD, the client and the simulator can share it.
    @Test
    void qosDependsOnTheJdkOnly() {
        classes().that().resideInAPackage("org.xtreemfs.qos..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.xtreemfs.qos..", "java..")
                .check(production);
    }

    // The QoS library reads no clock, starts no thread and does no file or network I/O: time comes in as a value.
    @Test
    void qosIsPure() {
        noClasses().that().resideInAPackage("org.xtreemfs.qos..")
                .should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().accessField(System.class, "out")
                .orShould().accessField(System.class, "err")
                .orShould().dependOnClassesThat().resideInAnyPackage("java.nio.file..", "java.nio.channels..",
                        "java.net..", "java.util.concurrent.locks..", "java.util.concurrent.atomic..")
                .orShould().dependOnClassesThat().areAssignableTo(java.io.File.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.io.FileInputStream.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.io.FileOutputStream.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.io.RandomAccessFile.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.Executor.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.time.Clock.class)
                .orShould().dependOnClassesThat().areAssignableTo(Thread.class)
                .check(production);
    }

    // The three services talk only through the generated interface and the foundation's stubs.
    @Test
    void servicesDoNotImportEachOther() {
        String[] services = {"org.xtreemfs.dir..", "org.xtreemfs.mrc..", "org.xtreemfs.osd.."};
        for (String service : services) {
            for (String other : services) {
                if (!service.equals(other)) {
                    noClasses().that().resideInAPackage(service)
                            .should().dependOnClassesThat().resideInAPackage(other)
                            .check(production);
                }
            }
        }
    }

    // Of the foundation, only the wire codec knows the QoS library: the rest of the runtime stays QoS-agnostic.
    @Test
    void onlyTheQosCodecOfTheFoundationKnowsTheQosLibrary() {
        noClasses().that().resideInAPackage("org.xtreemfs.foundation..")
                .and().resideOutsideOfPackage("org.xtreemfs.foundation.qos..")
                .should().dependOnClassesThat().resideInAPackage("org.xtreemfs.qos..")
                .check(production);
    }

    // The foundation and the interface are the bottom layers: they know no service and no client.
    @Test
    void foundationKnowsNoServiceOrClient() {
        noClasses().that().resideInAnyPackage("org.xtreemfs.foundation..", "org.xtreemfs.interfaces..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.dir..", "org.xtreemfs.mrc..",
                        "org.xtreemfs.osd..", "org.xtreemfs.client..")
                .check(production);
    }

    // The client library is usable without any server code on its classpath.
    @Test
    void clientDoesNotImportServers() {
        noClasses().that().resideInAPackage("org.xtreemfs.client..")
                .should().dependOnClassesThat().resideInAnyPackage("org.xtreemfs.dir..", "org.xtreemfs.mrc..",
                        "org.xtreemfs.osd..")
                .check(production);
    }
}
