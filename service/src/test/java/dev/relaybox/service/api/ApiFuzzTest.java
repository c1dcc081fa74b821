package dev.relaybox.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenAPI document holds for every operation, as an API fuzzer finds: each answer to a generated request, valid
 * or not, has the status, content type and shape the document gives, a request the document allows is accepted and one
 * it forbids refused. A failure the document cannot express (a cursor valid only as a list returned it, a payload its
 * event type's schema refuses) is listed with its reason in {@code api/fuzz-allowed.txt}; any other fails the build.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ApiFuzzTest {
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
    static final Api API = new Api(APP);
    static final Path ALLOWED = Path.of("src", "test", "resources", "api", "fuzz-allowed.txt");

    @Test
    void everyOperationAnswersAsTheDocumentSaysToAPortalTokenThenToAnAdminToken(@TempDir Path reports)
            throws IOException {
        List<Allowed> allowed = allowed();
        assertThat(API.admin("POST", "/admin/tenants", Map.of("key", "fuzz", "name", "Fuzz"))
                        .status())
                .isEqualTo(201);
        String portalToken =
                API.admin("POST", "/admin/tenants/fuzz/portal-access", Map.of()).text("token");

        // The portal first: the admin token's run may disable the tenant.
        List<String> portal = unexpected(
                Schemathesis.run(
                        openApi(), portalToken, "^/portal/api/", Files.createDirectory(reports.resolve("portal"))),
                allowed);
        List<String> admin = unexpected(
                Schemathesis.run(
                        openApi(),
                        TestApp.ADMIN_TOKEN,
                        "^/(admin|outbox|entities)",
                        Files.createDirectory(reports.resolve("admin"))),
                allowed);

        assertThat(Stream.concat(
                        portal.stream().map(failure -> "portal token: " + failure),
                        admin.stream().map(failure -> "admin token: " + failure)))
                .as("failures not listed in " + ALLOWED)
                .isEmpty();
    }

    /** An allowed failure: a pattern found in its summary, and why it is not a fault. */
    record Allowed(Pattern pattern, String why) {}

    private static List<String> unexpected(List<Schemathesis.Failure> failures, List<Allowed> allowed) {
        return failures.stream()
                .map(Schemathesis.Failure::summary)
                .filter(summary -> allowed.stream()
                        .noneMatch(entry -> entry.pattern().matcher(summary).find()))
                .toList();
    }

    /** {@code pattern # why} per line; blank lines and lines starting with {@code #} are comments. */
    private static List<Allowed> allowed() throws IOException {
        return Files.readAllLines(ALLOWED).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> {
                    int hash = line.indexOf(" # ");
                    assertThat(hash).as("an allowed failure says why: " + line).isPositive();
                    assertThat(line.substring(hash + 3).trim())
                            .as("why " + line)
                            .isNotEmpty();
                    return new Allowed(Pattern.compile(line.substring(0, hash).trim()), line.substring(hash + 3));
                })
                .toList();
    }

    private static String openApi() {
        return "http://127.0.0.1:" + APP.getLocalPort() + "/openapi.json";
    }
}
