package dev.relaybox.service;

import dev.relaybox.store.AuditChain;
import dev.relaybox.store.AuditLogStore;
import dev.relaybox.store.Store;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code relaybox audit config.yml [--seal HASH]}: checks the audit log's chain ({@link AuditChain}) and prints its
 * length and its last seal; with {@code --seal}, a seal recorded earlier (from the service's log) must still be in
 * it. Fails, naming the first broken entry, when it is not intact. Read-only; safe beside running instances.
 */
final class AuditCommand extends ConfiguredCommand<RelayboxConfiguration> {
    AuditCommand() {
        super(
                "audit",
                "checks that the audit log is intact: every entry still matches its seal and the chain before it");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser
                .addArgument("--seal")
                .dest("seal")
                .help("a seal recorded earlier (the service logs one per entry) that must still be in the chain");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<RelayboxConfiguration> bootstrap, Namespace namespace, RelayboxConfiguration config)
            throws Exception {
        String seal = namespace.getString("seal");
        AuditChain.Verdict verdict;
        try (CommandDatabase database = CommandDatabase.open(bootstrap, config, "audit")) {
            // Read-only: the schema is whatever the service made; a check changes nothing, migrations included.
            Jdbi jdbi = Store.configure(Jdbi.create(database.dataSource()));
            AuditChain chain = new AuditChain(seal);
            // A transaction, so that the driver streams the rows rather than reading them all at once.
            jdbi.useTransaction(h -> h.attach(AuditLogStore.class).readChain(chain));
            verdict = chain.verdict();
        }
        if (!verdict.intact()) {
            throw new IllegalStateException("the audit log is not intact: " + verdict.problem());
        }
        System.out.printf(
                "the audit log is intact: %d entries%s%s%n",
                verdict.entries(),
                verdict.entries() == 0
                        ? ""
                        : ", the last recorded " + verdict.lastRecordedAt() + " and sealed " + verdict.head(),
                seal == null ? "" : "; it holds the seal " + seal);
    }
}
