package dev.relaybox.service.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.admin.AdminPageResource;
import dev.relaybox.service.admin.AdminWorkflowsResource;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.api.ResourceTests;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.core.Response;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The portal page and its files: served without a token, with their content types and the configured CSP. */
@ExtendWith(DropwizardExtensionsSupport.class)
class PortalPageResourceTest {
    static final ResourceExtension EMBEDDABLE =
            ResourceTests.extension(new PortalPageResource("https://app.example.com https://*.example.org"));
    static final ResourceExtension DEFAULT = withErrorShape(ResourceExtension.builder()
            .setRegisterDefaultExceptionMappers(false)
            .addResource(new PortalPageResource())
            .addResource(new AdminPageResource())
            // The history page needs neither Temporal nor links; its data comes from a call the page makes.
            .addResource(new AdminWorkflowsResource(null, null)));

    private static ResourceExtension withErrorShape(ResourceExtension.Builder builder) {
        JsonErrorMappers.providers().forEach(builder::addProvider);
        return builder.build();
    }

    @ParameterizedTest
    @CsvSource({
        "/portal, text/html, <h1 id=\"title\">",
        "/portal/portal.js, text/javascript, function applyTheme(",
        "/portal/portal-log.js, text/javascript, async function resend(",
        "/portal/chart.js, text/javascript, function relayboxChart(",
        "/portal/portal.css, text/css, --accent",
    })
    void servesEachFileWithItsTypeAndThePolicyWithoutAToken(String path, String type, String content) {
        try (Response response = EMBEDDABLE.target(path).request().get()) {
            assertThat(response.getStatus()).isEqualTo(200);
            assertThat(response.getMediaType().toString()).startsWith(type);
            assertThat(response.getHeaderString("Content-Security-Policy"))
                    .isEqualTo("default-src 'self'; img-src 'self' https: data:;"
                            + " frame-ancestors https://app.example.com https://*.example.org");
            assertThat(response.getHeaderString("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(response.readEntity(String.class)).contains(content);
        }
    }

    @Test
    void nobodyMayFrameThePortalUnlessConfigured() {
        try (Response response = DEFAULT.target("/portal").request().get()) {
            assertThat(response.getHeaderString("Content-Security-Policy"))
                    .startsWith("default-src 'self';")
                    .endsWith("; frame-ancestors 'none'");
        }
    }

    @ParameterizedTest
    @CsvSource({
        "/admin, text/html",
        "/admin/admin.js, text/javascript",
        "/admin/payload-edit.js, text/javascript",
        "/admin/history.js, text/javascript",
        "/admin/workflows/outbox-1, text/html",
    })
    void theAdminPagesRunOnlyTheirOwnScriptsAndNobodyMayFrameThem(String path, String type) {
        try (Response response = DEFAULT.target(path).request().get()) {
            assertThat(response.getStatus()).isEqualTo(200);
            assertThat(response.getMediaType().toString()).startsWith(type);
            assertThat(response.getHeaderString("Content-Security-Policy"))
                    .isEqualTo("default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
                            + " frame-ancestors 'none'");
            assertThat(response.getHeaderString("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(response.getHeaderString("Referrer-Policy")).isEqualTo("no-referrer");
        }
    }

    @Test
    void anyOtherFileIsNotFound() {
        ResourceTests.Answer answer = ResourceTests.call(DEFAULT, "GET", "/portal/index.html", null, null);
        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.error()).isEqualTo("not_found");
    }

    @Test
    void theAdminPageAndThePortalServeTheSameChart() {
        try (Response portal = DEFAULT.target("/portal/chart.js").request().get();
                Response admin = DEFAULT.target("/admin/chart.js").request().get()) {
            assertThat(admin.getStatus()).isEqualTo(200);
            assertThat(portal.readEntity(String.class))
                    .contains("function relayboxChart(")
                    .isEqualTo(admin.readEntity(String.class));
        }
    }

    @Test
    void thePageLoadsNoScriptOrStyleFromElsewhereAndNoInlineScript() {
        try (Response response = DEFAULT.target("/portal").request().get()) {
            String page = response.readEntity(String.class);
            assertThat(page).doesNotContain("<style", "style=", "onclick", "<script>");
            assertThat(Pattern.compile("(?:src|href)=\"([^\"]*)\"")
                            .matcher(page)
                            .results()
                            .map(m -> m.group(1)))
                    .isNotEmpty()
                    .allMatch(url -> url.startsWith("/portal/"));
            assertThat(page).contains("<script src=\"/portal/chart.js\"></script>");
        }
    }
}
