package dev.relaybox.service;

import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.OwnListeners;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.service.config.AuthFactory;
import dev.relaybox.service.config.Roles;
import dev.relaybox.store.EndpointStore;
import java.util.Locale;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * What must hold before Relaybox serves anything: each check refuses to start with a reason that names the setting to
 * change ({@code refusing to start: ...}).
 */
final class StartupChecks {
    private StartupChecks() {}

    /**
     * Where webhooks may be sent (delivery.allowedPrivateNetworks; tenants' endpoints:
     * delivery.tenantAllowedPrivateNetworks) and Relaybox's own ports, which they may never
     * reach; the ports configured as 0 are added once the server has bound them.
     */
    static AddressPolicy addressPolicy(RelayboxConfiguration config) {
        String removed = config.getDelivery().removedSettingProblem();
        if (removed != null) {
            throw new IllegalStateException("refusing to start: " + removed);
        }
        OwnListeners own = OwnListeners.ofThisHost();
        config.listeners().all().forEach(listener -> own.add(listener.name(), listener.port()));
        if (config.getTemporal().isEmbedded()) {
            own.add("embedded Temporal", config.getTemporal().getEmbeddedPort());
            config.getTemporal().embeddedUiPort().ifPresent(port -> own.add("embedded Temporal UI", port));
        }
        try {
            boolean development = config.isDevelopment();
            return new AddressPolicy(config.getDelivery().allowedPrivateNetworks(development), own)
                    .withTenantNetworks(config.getDelivery().tenantAllowedPrivateNetworks(development));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("refusing to start: " + e.getMessage(), e);
        }
    }

    static Roles roles(RelayboxConfiguration config) {
        try {
            return config.roles();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("refusing to start: " + e.getMessage(), e);
        }
    }

    /**
     * The validated state machines; refuses configurations that must not start: bad machines or partners
     * anywhere, development tokens or secrets outside development mode ({@link RelayboxConfiguration#isDevelopment}).
     */
    static Map<String, StateMachine> stateMachines(RelayboxConfiguration config) {
        String refusing = "refusing to start: "
                + (config.isEmbedded()
                        ? config.listeners()
                                .beyondLoopback()
                                .map(exposed -> exposed + ": ")
                                .orElse("")
                        : "");
        String authProblem = config.getAuth().productionProblem();
        if (!config.isDevelopment() && authProblem != null) {
            throw new IllegalStateException(refusing + authProblem);
        }
        config.getPartners().forEach((name, partner) -> {
            if (!config.isDevelopment() && partner.getSignature().secrets().contains(AuthFactory.DEV_PARTNER_SECRET)) {
                throw new IllegalStateException(refusing + "partner '" + name + "' uses the development secret, "
                        + "accepted only in embedded mode with every listener on loopback; set "
                        + secretVariable(name));
            }
        });
        String secretsProblem = config.getSecrets().productionProblem();
        if (!config.isEmbedded() && secretsProblem != null) {
            throw new IllegalStateException("refusing to start: " + secretsProblem);
        }
        try {
            config.getInbox().build();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("refusing to start: inbox: " + e.getMessage(), e);
        }
        try {
            return config.stateMachines();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("refusing to start: " + e.getMessage(), e);
        }
    }

    /**
     * A route to an endpoint that does not exist would forward to no one: refuse to start, naming it. Endpoints
     * count whether seeded from the configuration or created through the admin API earlier.
     */
    static void routedEndpointsExist(Jdbi jdbi, RelayboxConfiguration config) {
        config.routedEndpointsByPartner().forEach((partner, names) -> {
            for (String name : names) {
                if (jdbi.withExtension(EndpointStore.class, store -> store.idOf(name))
                        .isEmpty()) {
                    throw new IllegalStateException("refusing to start: partner '" + partner
                            + "' routes events to endpoint '" + name + "', which does not exist; add it under"
                            + " endpoints or create it with POST /admin/endpoints before naming it in a route");
                }
            }
        });
    }

    /** The variable config.yml reads a partner's secret from, by its convention ({@code SHOP_WEBHOOK_SECRET}). */
    static String secretVariable(String partner) {
        return partner.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_") + "_WEBHOOK_SECRET";
    }
}
