package dev.relaybox.service.tracing;

import io.dropwizard.lifecycle.Managed;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relaybox's traces go out only when the standard OpenTelemetry variables say where: {@code OTEL_TRACES_EXPORTER}
 * (other than {@code none}) or an OTLP endpoint ({@code OTEL_EXPORTER_OTLP_ENDPOINT},
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}). Every other {@code OTEL_*} variable then applies as the SDK documents
 * it; Relaybox only changes two defaults: the service is named {@code relaybox}, and no metrics or logs are exported
 * (metrics are Prometheus's, at {@code /metrics}).
 */
public final class Tracing {
    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
    private static final Map<String, String> DEFAULTS =
            Map.of("otel.service.name", "relaybox", "otel.metrics.exporter", "none", "otel.logs.exporter", "none");

    private Tracing() {}

    /** The installed SDK, to close when the application stops; empty when the environment asks for no traces. */
    public static Optional<Managed> install(Map<String, String> environment) {
        if (!asked(environment)) {
            return Optional.empty();
        }
        Map<String, String> properties = new HashMap<>(DEFAULTS);
        // The SDK reads the process's variables itself too; these are the same, or a test's.
        environment.forEach((name, value) -> {
            if (name.startsWith("OTEL_")) {
                properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value);
            }
        });
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> properties)
                .build()
                .getOpenTelemetrySdk();
        GlobalOpenTelemetry.set(sdk);
        LOG.info("exporting traces as the OTEL_* variables configure");
        return Optional.of(new Managed() {
            @Override
            public void stop() {
                // Flushes the spans still buffered.
                sdk.close();
            }
        });
    }

    static boolean asked(Map<String, String> environment) {
        if ("true".equalsIgnoreCase(environment.get("OTEL_SDK_DISABLED"))) {
            return false;
        }
        String exporter = environment.get("OTEL_TRACES_EXPORTER");
        if (exporter != null && !exporter.isBlank()) {
            return !exporter.strip().equalsIgnoreCase("none");
        }
        return present(environment.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
                || present(environment.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"));
    }

    private static boolean present(String value) {
        return value != null && !value.isBlank();
    }
}
