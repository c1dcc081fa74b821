package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.service.config.SecretsFactory;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.Migrations;
import dev.relaybox.store.SecretBox;
import dev.relaybox.store.Store;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * {@code relaybox secrets rotate config.yml} on an embedded data directory, as an operator runs it: every endpoint
 * secret (current, rotated-out, and one stored before secrets were sealed) ends up sealed under the new key and opens
 * to what it was, and the data directory's key becomes the new one.
 */
class SecretsCommandTest {
    @Test
    void rotateReSealsEverySecretUnderTheNewKeyAndHandsItToTheDataDirectory() throws Exception {
        Path data = TestApp.freshDataDirectory();
        String oldKey = SecretBox.newKey();
        String newKey = SecretBox.newKey();
        String current = WebhookSigner.newSecret();
        String rotatedOut = WebhookSigner.newSecret();
        String legacy = WebhookSigner.newSecret();
        try (EmbeddedPostgres postgres = embedded(data)) {
            SecretsFactory.writeEmbeddedKey(data, oldKey);
            Migrations.migrate(postgres.getPostgresDatabase());
            Jdbi jdbi = Store.configure(Jdbi.create(postgres.getPostgresDatabase()), SecretBox.of(oldKey, List.of()));
            jdbi.useExtension(EndpointStore.class, store -> {
                store.upsert(
                        "billing",
                        "https://billing.example/hooks",
                        rotatedOut,
                        List.of("*"),
                        Instant.now().plusSeconds(86400));
                store.upsert(
                        "billing",
                        "https://billing.example/hooks",
                        current,
                        List.of("*"),
                        Instant.now().plusSeconds(86400));
            });
            jdbi.useHandle(h -> h.execute(
                    "INSERT INTO endpoints (name, url, secret) VALUES ('legacy', 'https://legacy.example/', ?)",
                    legacy));
        }

        String out = run(data, newKey);

        assertThat(out)
                .contains("re-sealed the secrets of 2 endpoints under key "
                        + SecretBox.of(newKey, List.of()).currentKeyId());
        assertThat(SecretsFactory.readEmbeddedKey(data)).contains(newKey);
        SecretBox onlyNew = SecretBox.of(newKey, List.of());
        try (EmbeddedPostgres postgres = embedded(data)) {
            List<Map<String, Object>> rows = Jdbi.create(postgres.getPostgresDatabase())
                    .withHandle(h -> h.createQuery("SELECT name, secret, previous_secret FROM endpoints ORDER BY name")
                            .mapToMap()
                            .list());
            List<String> opened = new ArrayList<>();
            for (Map<String, Object> row : rows) {
                for (String column : List.of("secret", "previous_secret")) {
                    String stored = (String) row.get(column);
                    if (stored != null) {
                        assertThat(onlyNew.sealedWithCurrentKey(stored))
                                .as(row + " " + column)
                                .isTrue();
                        opened.add(onlyNew.open(stored));
                    }
                }
            }
            assertThat(opened).containsExactly(current, rotatedOut, legacy);
        }
    }

    private static EmbeddedPostgres embedded(Path data) throws Exception {
        return EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .start();
    }

    /** The command in its own JVM, the new key given as RELAYBOX_SECRETS_KEY; its output. */
    private static String run(Path data, String newKey) throws Exception {
        Map<String, String> environment = new HashMap<>();
        environment.put("RELAYBOX_SECRETS_KEY", newKey);
        environment.put("RELAYBOX_SECRETS_OLD_KEYS", null);
        return CommandLine.run(data, environment, "secrets", "rotate");
    }
}
