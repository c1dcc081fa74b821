package dev.relaybox.service.config;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Relaybox's HTTP connectors as configured: where each binds, and which variable of config.yml sets that. The
 * development defaults hold only while every connector is on loopback, since anyone who can reach a port can use
 * the documented development tokens.
 */
public final class Listeners {
    /** One connector: its place in the configuration, the variable config.yml reads its bind host from. */
    public record Listener(String path, String variable, String name, String bindHost, int port) {
        /** A blank bind host is every interface. A name binds where it resolves to. */
        boolean loopbackOnly() {
            if (bindHost == null || bindHost.isBlank()) {
                return false;
            }
            try {
                return Arrays.stream(InetAddress.getAllByName(bindHost)).allMatch(InetAddress::isLoopbackAddress);
            } catch (UnknownHostException e) {
                return false;
            }
        }

        String where() {
            return bindHost == null || bindHost.isBlank() ? "every interface" : bindHost;
        }
    }

    private final List<Listener> listeners;

    private Listeners(List<Listener> listeners) {
        this.listeners = listeners;
    }

    public static Listeners of(ServerFactory server) {
        List<Listener> all = new ArrayList<>();
        if (server instanceof DefaultServerFactory factory) {
            add(all, factory.getApplicationConnectors(), "server.applicationConnectors", "BIND_HOST", "API");
            add(all, factory.getAdminConnectors(), "server.adminConnectors", "ADMIN_BIND_HOST", "admin");
        } else if (server instanceof SimpleServerFactory factory) {
            add(all, List.of(factory.getConnector()), "server.connector", "BIND_HOST", "API and admin");
        }
        return new Listeners(List.copyOf(all));
    }

    private static void add(
            List<Listener> all, List<ConnectorFactory> connectors, String path, String variable, String name) {
        for (int i = 0; i < connectors.size(); i++) {
            if (connectors.get(i) instanceof HttpConnectorFactory http) {
                all.add(new Listener(path + "[" + i + "]", variable, name, http.getBindHost(), http.getPort()));
            } else {
                all.add(new Listener(path + "[" + i + "]", variable, name, null, 0));
            }
        }
    }

    public List<Listener> all() {
        return listeners;
    }

    /** Why a connector is reachable from beyond this machine, naming the setting; empty when none is. */
    public Optional<String> beyondLoopback() {
        return listeners.stream()
                .filter(listener -> !listener.loopbackOnly())
                .findFirst()
                .map(listener -> listener.path() + " (" + listener.name() + ") listens on " + listener.where()
                        + ", beyond loopback (" + listener.variable() + "; " + listener.variable()
                        + "=127.0.0.1 keeps it on this machine)");
    }
}
