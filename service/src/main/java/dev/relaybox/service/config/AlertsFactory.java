package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.producer.JdbcOutbox;

/**
 * Where {@code relaybox.dead_letter.created} events go. With a URL set, an endpoint named
 * {@code relaybox-alerts} subscribed to them is created or updated at start-up.
 */
public final class AlertsFactory {
    public static final String ENDPOINT_NAME = JdbcOutbox.ALERT_ENDPOINT;

    @JsonProperty
    private String endpointUrl = "";

    @JsonProperty
    private String endpointSecret = "";

    public boolean isEnabled() {
        return endpointUrl != null && !endpointUrl.isBlank();
    }

    public String getEndpointUrl() {
        return endpointUrl;
    }

    public String getEndpointSecret() {
        return endpointSecret;
    }
}
