package dev.relaybox.service;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.statement.SqlBatch;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The layering rules within modules, read from the compiled classes of every module; the modules' own dependencies
 * (the store below activities, activities below the service) are Maven's to enforce.
 */
@AnalyzeClasses(packages = "dev.relaybox", importOptions = LayersTest.MainClasses.class)
class LayersTest {
    /** The shipped classes: not those of test directories, nor of the test jars the store and activities share. */
    static final class MainClasses implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("/test-classes/") && !location.contains("-tests.jar");
        }
    }

    @ArchTest
    static final ArchRule resourcesDoNotCallEachOther = noClasses()
            .that()
            .haveSimpleNameEndingWith("Resource")
            .should()
            .dependOnClassesThat()
            .haveSimpleNameEndingWith("Resource")
            .because("a resource parses, authorises and calls a use case; two routes share a use case, not a resource");

    @ArchTest
    static final ArchRule resourcesOpenNoTransaction = noClasses()
            .that()
            .haveSimpleNameEndingWith("Resource")
            .should()
            .callMethodWhere(target(owner(assignableTo(Jdbi.class)))
                    .and(target(name("inTransaction")
                            .or(name("useTransaction"))
                            .or(name("withHandle"))
                            .or(name("useHandle"))
                            .or(name("open")))))
            .orShould()
            .dependOnClassesThat()
            .areAssignableTo(Handle.class)
            .because("a use case owns its transaction: a resource that opens one holds a use case of its own");

    @ArchTest
    static final ArchRule servicePackagesFormNoCycle =
            slices().matching("dev.relaybox.service.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule activitiesPackagesFormNoCycle =
            slices().matching("dev.relaybox.activities.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule onlyStoresHoldSql = noMethods()
            .that()
            .areAnnotatedWith(SqlQuery.class)
            .or()
            .areAnnotatedWith(SqlUpdate.class)
            .or()
            .areAnnotatedWith(SqlBatch.class)
            .should()
            .beDeclaredInClassesThat()
            .resideOutsideOfPackage("dev.relaybox.store..")
            .because(
                    "the store module holds every SQL statement: a query elsewhere is a store method waiting to be moved");
}
