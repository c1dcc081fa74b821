package dev.relaybox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.outbound.Destination;
import dev.relaybox.activities.outbound.WebhookSigner;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Endpoint signing secrets, current and rotated-out, and static headers are stored encrypted and read back as they were
 * given.
 */
class EndpointSecretsAtRestTest {
    final Jdbi jdbi = TestDatabase.fresh();

    @Test
    void aCreatedEndpointsSecretIsNotInItsRowButSignsAsGiven() {
        String secret = WebhookSigner.newSecret();

        UUID id = jdbi.withExtension(
                EndpointStore.class,
                store -> store.insert("billing", "https://billing.example/hooks", secret, List.of("*"))
                        .orElseThrow()
                        .id());

        Map<String, Object> row = storedSecrets(id);
        assertThat(row.get("secret").toString()).doesNotContain(secret).doesNotContain(secret.substring(6));
        Endpoint read =
                jdbi.withExtension(EndpointStore.class, store -> store.find(id)).orElseThrow();
        assertThat(read.secret()).isEqualTo(secret);
    }

    @Test
    void aRotatedOutSecretIsStoredEncryptedTooAndBothStillSign() {
        String first = WebhookSigner.newSecret();
        String second = WebhookSigner.newSecret();
        UUID id = jdbi.withExtension(
                EndpointStore.class,
                store -> store.insert("orders", "https://orders.example/hooks", first, List.of("*"))
                        .orElseThrow()
                        .id());

        jdbi.useExtension(
                EndpointStore.class,
                store -> store.rotateSecret(id, second, Instant.now().plusSeconds(3600)));

        Map<String, Object> row = storedSecrets(id);
        assertThat(row.get("secret").toString()).doesNotContain(second.substring(6));
        assertThat(row.get("previous_secret").toString()).doesNotContain(first.substring(6));
        Endpoint read =
                jdbi.withExtension(EndpointStore.class, store -> store.find(id)).orElseThrow();
        assertThat(read.secret()).isEqualTo(second);
        assertThat(read.previousSecret()).isEqualTo(first);
    }

    @Test
    void aConfiguredEndpointRotatesOnlyWhenItsSecretChanges() {
        String first = WebhookSigner.newSecret();
        String second = WebhookSigner.newSecret();
        Instant grace = Instant.now().plusSeconds(3600);

        jdbi.useExtension(EndpointStore.class, store -> {
            store.upsert("seeded", "https://seeded.example/hooks", first, List.of("*"), grace);
            store.upsert("seeded", "https://seeded.example/hooks", first, List.of("*"), grace);
        });
        Endpoint unchanged = jdbi.withExtension(
                        EndpointStore.class,
                        store -> store.list().stream()
                                .filter(e -> e.name().equals("seeded"))
                                .findFirst())
                .orElseThrow();
        assertThat(unchanged.secret()).isEqualTo(first);
        assertThat(unchanged.previousSecret()).isNull();

        jdbi.useExtension(
                EndpointStore.class,
                store -> store.upsert("seeded", "https://seeded.example/hooks", second, List.of("*"), grace));
        Endpoint rotated = jdbi.withExtension(EndpointStore.class, store -> store.find(unchanged.id()))
                .orElseThrow();
        assertThat(rotated.secret()).isEqualTo(second);
        assertThat(rotated.previousSecret()).isEqualTo(first);
        assertThat(storedSecrets(unchanged.id()).get("secret").toString()).doesNotContain(second.substring(6));
    }

    @Test
    void secretsStoredBeforeSealingAreSealedByTheStartUpPassAndStillSign() {
        String legacy = WebhookSigner.newSecret();
        UUID id = jdbi.withHandle(h -> h.createQuery(
                        "INSERT INTO endpoints (name, url, secret) VALUES ('legacy', 'https://legacy.example/', :s) RETURNING id")
                .bind("s", legacy)
                .mapTo(UUID.class)
                .one());

        int sealed = jdbi.withExtension(EndpointSecretsStore.class, store -> store.resealSecrets(true));
        int again = jdbi.withExtension(EndpointSecretsStore.class, store -> store.resealSecrets(true));

        assertThat(sealed).isEqualTo(1);
        assertThat(again).isZero();
        assertThat(storedSecrets(id).get("secret").toString())
                .startsWith(SecretBox.PREFIX)
                .doesNotContain(legacy);
        assertThat(jdbi.withExtension(EndpointStore.class, store -> store.find(id))
                        .orElseThrow()
                        .secret())
                .isEqualTo(legacy);
    }

    @Test
    void staticHeadersAreSealedAndReSealedUnderANewKeyWithTheSecrets() {
        String headers = "{\"X-Api-Key\":\"k-123\"}";
        assertSealedAndResealed(
                "headers", "k-123", (store, id) -> store.setHeaders(id, headers), Endpoint::headers, headers);
    }

    @Test
    void aBrokerDestinationsCredentialsAreSealedAndReSealedUnderANewKeyWithTheSecrets() {
        String destination = new Destination.RabbitMq("orders", "order.events", "relaybox", "p-456").toJson();
        assertSealedAndResealed(
                "destination",
                "p-456",
                (store, id) -> store.setDestination(id, destination),
                Endpoint::destination,
                destination);
    }

    /** {@code write} stores {@code column} sealed under one key; re-sealing under a new key reads back as written. */
    private static void assertSealedAndResealed(
            String column,
            String secretPart,
            BiConsumer<EndpointHeadersStore, UUID> write,
            Function<Endpoint, String> read,
            String written) {
        String oldKey = SecretBox.newKey();
        DataSource database = TestDatabase.freshDataSource();
        Jdbi before = Store.configure(Jdbi.create(database), SecretBox.of(oldKey, List.of()));
        UUID id = before.withExtension(
                EndpointStore.class,
                store -> store.insert("gateway", "https://gateway.example/", WebhookSigner.newSecret(), List.of("*"))
                        .orElseThrow()
                        .id());
        before.useExtension(EndpointHeadersStore.class, store -> write.accept(store, id));
        assertThat(stored(column, before, id)).startsWith(SecretBox.PREFIX).doesNotContain(secretPart);

        SecretBox rotated = SecretBox.of(SecretBox.newKey(), List.of(oldKey));
        Jdbi after = Store.configure(Jdbi.create(database), rotated);
        int resealed = after.withExtension(EndpointSecretsStore.class, store -> store.resealSecrets(false));
        assertThat(resealed).isEqualTo(1);

        assertThat(rotated.sealedWithCurrentKey(stored(column, after, id))).isTrue();
        assertThat(read.apply(after.withExtension(EndpointStore.class, store -> store.find(id))
                        .orElseThrow()))
                .isEqualTo(written);
        long left = after.withExtension(EndpointSecretsStore.class, EndpointSecretsStore::secretsNotUnderTheCurrentKey);
        assertThat(left).isZero();
    }

    private static String stored(String column, Jdbi jdbi, UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT " + column + " FROM endpoints WHERE id = :id")
                .bind("id", id)
                .mapTo(String.class)
                .one());
    }

    private Map<String, Object> storedSecrets(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT secret, previous_secret FROM endpoints WHERE id = :id")
                .bind("id", id)
                .mapToMap()
                .one());
    }
}
