package org.xtreemfs.mrc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.security.SecureRandom;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.mrc.capability.CapabilityIssuer;

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

    @Test
    void theNamespaceCoreReadsNoClockAndNoRandomness() {
        // Time and ids come in the OperationContext; the core only reads and writes the store.
        noClasses().that().resideInAPackage("org.xtreemfs.mrc.metadata..")
                .should().dependOnClassesThat().belongToAnyOf(Clock.class, CapabilityIssuer.class, XCapSigner.class,
                        Random.class, SecureRandom.class, UUID.class)
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .check(mrc);
    }

    @Test
    void applyStepsAndOperationLogicReadNoClockAndIssueNoCapability() {
        // An operation's apply step, and the static method that holds its logic, are deterministic in
        // (context, store): capabilities are verified in prepare and issued in answer, both of which read
        // the clock, never here.
        methods().that().areDeclaredInClassesThat().resideInAPackage("org.xtreemfs.mrc.ops..")
                .and().areDeclaredInClassesThat().haveSimpleNameEndingWith("Op")
                .and(DescribedPredicate.describe("are apply steps or operation logic",
                        (JavaMethod method) -> method.getName().equals("apply")
                                || method.getModifiers().containsAll(Set.of(JavaModifier.PUBLIC, JavaModifier.STATIC))))
                .should(readNoClockAndIssueNoCapability())
                .check(mrc);
    }

    private static ArchCondition<JavaMethod> readNoClockAndIssueNoCapability() {
        return new ArchCondition<>("read no clock, no randomness and issue or verify no capability") {
            @Override
            public void check(JavaMethod method, ConditionEvents events) {
                for (JavaCall<?> call : method.getCallsFromSelf()) {
                    JavaClass owner = call.getTargetOwner();
                    String name = call.getName();
                    boolean forbidden = owner.isAssignableTo(Clock.class) || owner.isAssignableTo(CapabilityIssuer.class)
                            || owner.isAssignableTo(XCapSigner.class) || owner.isAssignableTo(Random.class)
                            || owner.isEquivalentTo(UUID.class)
                            || (owner.isEquivalentTo(System.class)
                                    && (name.equals("currentTimeMillis") || name.equals("nanoTime")))
                            || (call.getTargetOwner().getName().equals(
                                    "org.xtreemfs.mrc.ops.OpServices") && (name.equals("clock")
                                            || name.equals("capabilities") || name.equals("volumeIds")));
                    if (forbidden) {
                        events.add(SimpleConditionEvent.violated(method, method.getFullName() + " calls "
                                + call.getTarget().getFullName() + " in " + call.getSourceCodeLocation()));
                    }
                }
            }
        };
    }
}
