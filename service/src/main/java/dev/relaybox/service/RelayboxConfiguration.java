package dev.relaybox.service;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.service.config.AuthFactory;
import dev.relaybox.service.config.DeliveryFactory;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.service.config.EndpointSeed;
import dev.relaybox.service.config.OutboxFactory;
import dev.relaybox.service.config.EmbeddedPostgresFactory;
import dev.relaybox.service.config.TemporalFactory;
import io.dropwizard.core.Configuration;
import io.dropwizard.db.DataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.List;

public final class RelayboxConfiguration extends Configuration {
    /** {@code database.url} set to this value starts the embedded PostgreSQL. */
    public static final String EMBEDDED_DATABASE = "embedded";

    @Valid
    @NotNull
    @JsonProperty
    private DataSourceFactory database = new DataSourceFactory();

    @Valid
    @NotNull
    @JsonProperty
    private EmbeddedPostgresFactory embeddedPostgres = new EmbeddedPostgresFactory();

    @Valid
    @NotNull
    @JsonProperty
    private TemporalFactory temporal = new TemporalFactory();

    @Valid
    @NotNull
    @JsonProperty
    private AuthFactory auth = new AuthFactory();

    @Valid
    @NotNull
    @JsonProperty
    private DeliveryFactory delivery = new DeliveryFactory();

    @Valid
    @NotNull
    @JsonProperty
    private DispatcherFactory dispatcher = new DispatcherFactory();

    @Valid
    @NotNull
    @JsonProperty
    private OutboxFactory outbox = new OutboxFactory();

    @Valid
    @NotNull
    @JsonProperty
    private List<EndpointSeed> endpoints = List.of();

    public DeliveryFactory getDelivery() {
        return delivery;
    }

    public DispatcherFactory getDispatcher() {
        return dispatcher;
    }

    public OutboxFactory getOutbox() {
        return outbox;
    }

    public List<EndpointSeed> getEndpoints() {
        return endpoints;
    }

    /** Either embedded part running means this is a development setup, not production. */
    public boolean isEmbedded() {
        return isEmbeddedDatabase() || temporal.isEmbedded();
    }

    public DataSourceFactory getDatabase() {
        return database;
    }

    public boolean isEmbeddedDatabase() {
        return EMBEDDED_DATABASE.equals(database.getUrl());
    }

    public EmbeddedPostgresFactory getEmbeddedPostgres() {
        return embeddedPostgres;
    }

    public TemporalFactory getTemporal() {
        return temporal;
    }

    public AuthFactory getAuth() {
        return auth;
    }
}
