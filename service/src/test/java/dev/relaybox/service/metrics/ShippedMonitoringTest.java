package dev.relaybox.service.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.InstalledTool;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped Prometheus alerting rules ({@code docker/prometheus}) and Grafana dashboard ({@code docker/grafana}):
 * each alert fires, and stays quiet, as its {@code promtool} test says; each dashboard expression is valid PromQL; and
 * every Relaybox metric they name is one a running Relaybox exports, so a renamed metric fails here rather than
 * silencing an alert or blanking a panel.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ShippedMonitoringTest {
    static final Path RULES =
            Path.of("..", "docker", "prometheus").toAbsolutePath().normalize();
    static final Path DASHBOARD = Path.of("..", "docker", "grafana", "relaybox-dashboard.json")
            .toAbsolutePath()
            .normalize();
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
    static final Api API = new Api(APP);
    /** Appear only once an endpoint is disabled for failing, or the database stops answering: drills, not this test. */
    static final Set<String> AFTER_AN_OUTAGE =
            Set.of("relaybox_endpoints_disabled_total", "relaybox_database_waits_total");

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void everyRelayboxMetricTheRulesAndTheDashboardNameIsOneARunningRelayboxExports() throws IOException {
        Set<String> named = new TreeSet<>();
        try (Stream<Path> files = Files.list(RULES)) {
            for (Path file : Stream.concat(files.filter(f -> f.toString().endsWith(".yml")), Stream.of(DASHBOARD))
                    .toList()) {
                Matcher metric = Pattern.compile("relaybox_[a-z_]+").matcher(Files.readString(file));
                while (metric.find()) {
                    named.add(metric.group());
                }
            }
        }
        named.removeAll(AFTER_AN_OUTAGE);
        assertThat(named)
                .contains(
                        "relaybox_dead_letters_total",
                        "relaybox_endpoint_circuit_open",
                        "relaybox_delivery_attempt_seconds_bucket",
                        "relaybox_delivery_latency_seconds_bucket",
                        "relaybox_inbox_requests_total");

        // Endpoints, a delivery, a dead letter and a partner's webhook, for the series that appear with them.
        RECEIVER.script("/gone", TestReceiver.Reply.of(410));
        RECEIVER.script("/ok", TestReceiver.Reply.of(200));
        for (String path : List.of("/gone", "/ok")) {
            assertThat(API.admin(
                                    "POST",
                                    "/admin/endpoints",
                                    Map.of(
                                            "name",
                                            path.substring(1),
                                            "url",
                                            RECEIVER.url(path),
                                            "eventTypes",
                                            List.of("*")))
                            .status())
                    .isEqualTo(201);
        }
        assertThat(API.enqueue("order.paid", "order", "1", Map.of("orderId", "1"))
                        .status())
                .isEqualTo(202);
        assertThat(API.shopWebhook("evt-monitoring", "order.created", "1").status())
                .isEqualTo(200);

        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(exported()).containsAll(named));
    }

    @Test
    void eachAlertFiresAndStaysQuietAsItsTestSays() throws Exception {
        promtool(RULES, "test", "rules", "relaybox-alerts-test.yml");
    }

    @Test
    void everyDashboardExpressionIsValidPromQl(@TempDir Path scratch) throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int expressions = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
            for (JsonNode target : panel.path("targets")) {
                rules.append("      - record: dashboard:expression_")
                        .append(++expressions)
                        .append("\n        expr: ")
                        .append(new ObjectMapper()
                                .writeValueAsString(target.path("expr").asText()))
                        .append('\n');
            }
        }
        // A recording rule per expression: promtool parses each as Prometheus would.
        Path file = Files.writeString(scratch.resolve("dashboard-expressions.yml"), rules);
        assertThat(promtool(scratch, "check", "rules", file.toString())).contains(expressions + " rules found");
    }

    /** The metric names on the admin port's /metrics. */
    private static Set<String> exported() throws Exception {
        String text = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getAdminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Set<String> names = new TreeSet<>();
        text.lines()
                .filter(line -> !line.startsWith("#") && !line.isBlank())
                .forEach(line -> names.add(line.split("[{ ]", 2)[0]));
        return names;
    }

    /** Runs {@code promtool} (Debian's prometheus package) in {@code directory}; what it printed, once it succeeded. */
    private static String promtool(Path directory, String... arguments) throws Exception {
        List<String> command =
                new ArrayList<>(List.of(InstalledTool.require(null, "promtool", "Debian's prometheus package")
                        .toString()));
        command.addAll(List.of(arguments));
        Process promtool = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(promtool.exitValue()).as(output).isZero();
        return output;
    }
}
