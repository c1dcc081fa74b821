package dev.relaybox.service;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.activities.inbound.InboundRoutes;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.activities.statemachine.StateMachineConfig;
import dev.relaybox.service.config.AlertsFactory;
import dev.relaybox.service.config.AuthFactory;
import dev.relaybox.service.config.DeliveryFactory;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.service.config.EmbeddedPostgresFactory;
import dev.relaybox.service.config.EndpointSeed;
import dev.relaybox.service.config.EventTypesFactory;
import dev.relaybox.service.config.InboxFactory;
import dev.relaybox.service.config.Listeners;
import dev.relaybox.service.config.OutboxFactory;
import dev.relaybox.service.config.PartnerFactory;
import dev.relaybox.service.config.PortalFactory;
import dev.relaybox.service.config.RetentionFactory;
import dev.relaybox.service.config.Roles;
import dev.relaybox.service.config.SecretsFactory;
import dev.relaybox.service.config.TemporalFactory;
import dev.relaybox.service.metrics.DeadLetterAlerts;
import io.dropwizard.core.Configuration;
import io.dropwizard.db.DataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class RelayboxConfiguration extends Configuration {
    /** {@code database.url} set to this value starts the embedded PostgreSQL. */
    public static final String EMBEDDED_DATABASE = "embedded";

    /** Set once the embedded server runs and {@code database.url} names it. */
    @JsonIgnore
    private boolean embeddedDatabaseStarted;

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

    @Valid
    @NotNull
    @JsonProperty
    private EventTypesFactory eventTypes = new EventTypesFactory();

    @Valid
    @NotNull
    @JsonProperty
    private AlertsFactory alerts = new AlertsFactory();

    @Valid
    @NotNull
    @JsonProperty
    private Map<String, PartnerFactory> partners = Map.of();

    @NotNull
    @JsonProperty
    private Map<String, StateMachineConfig> stateMachines = Map.of();

    @Valid
    @NotNull
    @JsonProperty
    private InboxFactory inbox = new InboxFactory();

    @Valid
    @NotNull
    @JsonProperty
    private RetentionFactory retention = new RetentionFactory();

    @Valid
    @NotNull
    @JsonProperty
    private SecretsFactory secrets = new SecretsFactory();

    @Valid
    @NotNull
    @JsonProperty
    private PortalFactory portal = new PortalFactory();

    public PortalFactory getPortal() {
        return portal;
    }

    public SecretsFactory getSecrets() {
        return secrets;
    }

    public RetentionFactory getRetention() {
        return retention;
    }

    /** {@code api,dispatcher,worker} or a part of it: what this process does (see {@link Roles}). */
    @NotEmpty
    @JsonProperty
    private String roles = Roles.ALL;

    /** Throws {@link IllegalArgumentException} naming RELAYBOX_ROLES when it lists an unknown role. */
    public Roles roles() {
        return Roles.parse(roles);
    }

    public Map<String, PartnerFactory> getPartners() {
        return partners;
    }

    public InboxFactory getInbox() {
        return inbox;
    }

    /**
     * The state machines, validated together with the partners that feed them; throws
     * {@link IllegalArgumentException} naming the first problem.
     */
    public Map<String, StateMachine> stateMachines() {
        Map<String, StateMachine> machines = StateMachine.fromConfig(stateMachines);
        partners.forEach((name, partner) -> {
            String problem = partner.problem(name);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
            if (!machines.containsKey(partner.getAggregateType())
                    && partner.getRoutes().isEmpty()) {
                throw new IllegalArgumentException("partner '" + name + "': no state machine for aggregate type '"
                        + partner.getAggregateType() + "' (stateMachines has " + machines.keySet()
                        + ") and no routes");
            }
        });
        return machines;
    }

    /** Each partner's routes to endpoints, by partner name. */
    public InboundRoutes inboundRoutes() {
        Map<String, List<InboundRoutes.Route>> routes = new LinkedHashMap<>();
        partners.forEach((name, partner) -> routes.put(name, partner.routes()));
        return new InboundRoutes(routes);
    }

    /** The endpoint names the partners' routes use, for the start-up check that each exists. */
    public Map<String, List<String>> routedEndpointsByPartner() {
        Map<String, List<String>> names = new LinkedHashMap<>();
        partners.forEach((name, partner) -> names.put(
                name,
                partner.getRoutes().stream()
                        .flatMap(route -> route.endpoints().stream())
                        .distinct()
                        .toList()));
        return names;
    }

    public EventTypesFactory getEventTypes() {
        return eventTypes;
    }

    public AlertsFactory getAlerts() {
        return alerts;
    }

    /** The configured endpoints, plus the alert endpoint when alerting is on. */
    public List<EndpointSeed> endpointSeeds() {
        if (!alerts.isEnabled()) {
            return endpoints;
        }
        List<EndpointSeed> all = new ArrayList<>(endpoints);
        all.add(new EndpointSeed(
                AlertsFactory.ENDPOINT_NAME,
                alerts.getEndpointUrl(),
                alerts.getEndpointSecret(),
                List.of(DeadLetterAlerts.ALERT_EVENT)));
        return all;
    }

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

    /**
     * Development defaults (tokens, the example partner's secret, private-network endpoints) hold only when
     * both parts run embedded; one external part makes this production, so nothing half-set-up accepts them.
     */
    public boolean isEmbedded() {
        return isEmbeddedDatabase() && temporal.isEmbedded();
    }

    /**
     * The development defaults hold: both parts run embedded and every HTTP connector listens on loopback only, so
     * nobody who knows the documented tokens can reach it from elsewhere.
     */
    public boolean isDevelopment() {
        return isEmbedded() && listeners().beyondLoopback().isEmpty();
    }

    public Listeners listeners() {
        return Listeners.of(getServerFactory());
    }

    public DataSourceFactory getDatabase() {
        return database;
    }

    public boolean isEmbeddedDatabase() {
        return embeddedDatabaseStarted || EMBEDDED_DATABASE.equals(database.getUrl());
    }

    /** Points the pool at the embedded server once it runs; the database stays embedded to every later question. */
    public void useEmbeddedDatabase(String jdbcUrl) {
        embeddedDatabaseStarted = true;
        database.setUrl(jdbcUrl);
        database.setUser("postgres");
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
