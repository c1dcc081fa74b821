package dev.relaybox.service;

import dev.relaybox.activities.outbound.EndpointHeaders;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.PayloadFilterSyntax;
import dev.relaybox.activities.signing.Hmac;
import dev.relaybox.service.config.EndpointSeed;
import dev.relaybox.store.EndpointFilterStore;
import dev.relaybox.store.EndpointHeadersStore;
import dev.relaybox.store.EndpointSecretsStore;
import dev.relaybox.store.EndpointStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The endpoints config.yml declares, written at start-up, and the sealing of secrets an upgrade left in plaintext. */
final class ConfiguredEndpoints {
    private static final Logger LOG = LoggerFactory.getLogger(RelayboxApplication.class);

    private ConfiguredEndpoints() {}

    /** Secrets written before they were sealed (an upgraded database) are sealed once, before anything reads them. */
    static void sealPlaintextSecrets(Jdbi jdbi) {
        int sealed = jdbi.withExtension(EndpointSecretsStore.class, store -> store.resealSecrets(true));
        if (sealed > 0) {
            LOG.info("sealed the plaintext signing secrets of {} endpoints under the secrets key", sealed);
        }
    }

    /** Creates or updates the endpoints declared in config.yml; a bad one stops start-up with its name. */
    static void seed(Jdbi jdbi, List<EndpointSeed> seeds, EndpointUrlPolicy urlPolicy, Duration rotationGrace) {
        for (EndpointSeed seed : seeds) {
            urlPolicy.problem(seed.url()).ifPresent(problem -> {
                throw new IllegalStateException("endpoint " + seed.name() + " in config: " + problem);
            });
            String filter;
            Map<String, String> headers;
            try {
                Hmac.secretKey(seed.secret());
                filter = PayloadFilterSyntax.stored(seed.filter());
                headers = EndpointHeaders.check(seed.headers() == null ? Map.of() : seed.headers());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("endpoint " + seed.name() + " in config: " + e.getMessage());
            }
            jdbi.useExtension(
                    EndpointStore.class,
                    dao -> dao.upsert(
                            seed.name(),
                            seed.url(),
                            seed.secret(),
                            seed.eventTypes(),
                            Instant.now().plus(rotationGrace)));
            jdbi.useExtension(EndpointStore.class, dao -> dao.setControlsByName(seed.name(), seed.controls()));
            jdbi.useTransaction(h -> {
                UUID id = h.attach(EndpointStore.class).idOf(seed.name()).orElseThrow();
                h.attach(EndpointFilterStore.class).setPayloadFilter(id, filter);
                h.attach(EndpointHeadersStore.class).setHeaders(id, EndpointHeaders.stored(headers));
            });
        }
    }
}
