package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Path;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

class RestartTest {

    @Test
    void secondBootInSameJvmReusesDataDirectoryAndPorts() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();

        DropwizardTestSupport<RelayboxConfiguration> first = TestApp.support(data, temporalPort);
        first.before();
        try {
            jdbi(first).useHandle(h -> h.execute(
                    "INSERT INTO entities (aggregate_type, aggregate_id, state, version) VALUES ('order', '1', 'paid', 1)"));
        } finally {
            first.after();
        }

        // Same Temporal port and data directory: only possible if the first boot released both.
        DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort);
        second.before();
        try {
            String state = jdbi(second).withHandle(h -> h.createQuery(
                    "SELECT state FROM entities WHERE aggregate_type = 'order' AND aggregate_id = '1'")
                    .mapTo(String.class).one());
            assertThat(state).isEqualTo("paid");
        } finally {
            second.after();
        }
    }

    private static Jdbi jdbi(DropwizardTestSupport<RelayboxConfiguration> app) {
        return Jdbi.create(app.getConfiguration().getDatabase().getUrl(), "postgres", "");
    }
}
