package dev.relaybox.service;

import dev.relaybox.service.config.DatabaseUrls;
import dev.relaybox.service.config.Roles;
import dev.relaybox.service.temporal.TemporalRuntime;
import io.dropwizard.lifecycle.ServerLifecycleListener;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one line that says Relaybox is ready, and where everything it serves and uses is. */
final class ReadyMessage {
    private static final Logger LOG = LoggerFactory.getLogger(RelayboxApplication.class);

    private ReadyMessage() {}

    static ServerLifecycleListener listener(RelayboxConfiguration config, TemporalRuntime temporal, Roles roles) {
        return new ServerLifecycleListener() {
            @Override
            public void serverStarted(Server server) {
                LOG.info(
                        "Relaybox ready ({}): API {} | admin http://localhost:{}/healthcheck | "
                                + "Temporal {} (namespace {}, task queue {}{}) | database {}",
                        roles,
                        // Addresses that answer: the contract and the admin page, not the bare root (a 404).
                        roles.api()
                                ? "http://localhost:" + getLocalPort(server) + "/openapi.json (admin page /admin)"
                                : "not served (no api role)",
                        getAdminPort(server),
                        temporal.target(),
                        config.getTemporal().getNamespace(),
                        config.getTemporal().getTaskQueue(),
                        temporal.embeddedUiUrl().map(ui -> ", UI " + ui).orElse(""),
                        DatabaseUrls.redacted(config.getDatabase().getUrl()));
            }
        };
    }
}
