package dev.relaybox.service;

import dev.relaybox.service.config.SecretsFactory;
import dev.relaybox.store.EndpointSecretsStore;
import dev.relaybox.store.Migrations;
import dev.relaybox.store.SecretBox;
import dev.relaybox.store.Store;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import java.nio.file.Path;
import java.util.Optional;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code relaybox secrets rotate config.yml}: re-seals every endpoint signing secret (plaintext ones included) under
 * {@code RELAYBOX_SECRETS_KEY}, opening those sealed under {@code RELAYBOX_SECRETS_OLD_KEYS} (and, embedded, the data
 * directory's key, which the new key then replaces). Safe beside running instances that already seal with the new
 * key; an embedded database is rotated only while Relaybox is stopped, since the running server seals with its own.
 */
final class SecretsCommand extends ConfiguredCommand<RelayboxConfiguration> {
    SecretsCommand() {
        super(
                "secrets",
                "'secrets rotate' re-seals every endpoint signing secret under RELAYBOX_SECRETS_KEY, opening them "
                        + "with RELAYBOX_SECRETS_OLD_KEYS");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("rotate").help("what to do with the stored secrets");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<RelayboxConfiguration> bootstrap, Namespace namespace, RelayboxConfiguration config)
            throws Exception {
        boolean embeddedDatabase = config.isEmbeddedDatabase();
        Path data = Path.of(config.getEmbeddedPostgres().getDataDirectory()).toAbsolutePath();
        if (embeddedDatabase && EmbeddedDump.runningServerPort(data).isPresent()) {
            throw new IllegalStateException("Relaybox is running on " + data
                    + "; stop it first: it would go on sealing " + "new secrets with the old key");
        }
        Optional<String> embeddedKey = embeddedDatabase ? SecretsFactory.readEmbeddedKey(data) : Optional.empty();
        SecretBox box = config.getSecrets().rotation(embeddedKey);

        Environment environment = new Environment(bootstrap.getApplication().getName());
        EmbeddedPostgresBundle.start(config, environment);
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "secrets");
        try {
            Migrations.migrate(dataSource);
            Jdbi jdbi = Store.configure(Jdbi.create(dataSource), box);
            int resealed = jdbi.withExtension(EndpointSecretsStore.class, store -> store.resealSecrets(false));
            long left =
                    jdbi.withExtension(EndpointSecretsStore.class, EndpointSecretsStore::secretsNotUnderTheCurrentKey);
            if (left > 0) {
                throw new IllegalStateException(left + " endpoints changed while they were re-sealed and still hold "
                        + "secrets under another key; run the command again");
            }
            if (embeddedDatabase) {
                // The next start without RELAYBOX_SECRETS_KEY reads the data directory's key: make it the new one.
                SecretsFactory.writeEmbeddedKey(data, config.getSecrets().currentKey());
            }
            System.out.printf(
                    "re-sealed the secrets of %d endpoints under key %s; every endpoint's secrets are under it%s%n",
                    resealed,
                    box.currentKeyId(),
                    embeddedDatabase ? " (and " + data.resolve(SecretsFactory.EMBEDDED_KEY_FILE) + " holds it)" : "");
        } finally {
            dataSource.stop();
            for (var managed : environment.lifecycle().getManagedObjects()) {
                managed.stop();
            }
        }
    }
}
