package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.config.EmbeddedTokens;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Embedded mode with no tokens configured (the shipped configuration) makes its own on the first start, in the data
 * directory, readable by the owner only: a reverse proxy that publishes the loopback port publishes no token anyone
 * knows. The development tokens open nothing then, and a restart keeps the tokens it made.
 */
class EmbeddedTokensTest {
    static final ConfigOverride[] UNSET = {
        ConfigOverride.config("auth.adminTokens", ""), ConfigOverride.config("auth.producerTokens", "")
    };

    @Test
    void theFirstStartMakesTokensThatOpenTheApiWhereTheDevelopmentTokensDoNot() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();
        Map<String, String> made;
        DropwizardTestSupport<RelayboxConfiguration> first = TestApp.support(data, temporalPort, UNSET);
        first.before();
        try {
            Path file = data.resolve(EmbeddedTokens.FILE);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
            made = lines(file);
            assertThat(made.keySet()).containsExactly("RELAYBOX_ADMIN_TOKENS", "RELAYBOX_PRODUCER_TOKENS");
            assertThat(made.values())
                    .allSatisfy(token -> assertThat(token).startsWith("rbx_").hasSizeGreaterThan(32));

            Api api = new Api(first);
            assertThat(status(api, "/admin/endpoints", TestApp.ADMIN_TOKEN)).isEqualTo(401);
            assertThat(status(api, "/admin/endpoints", made.get("RELAYBOX_ADMIN_TOKENS")))
                    .isEqualTo(200);
            assertThat(status(api, "/entities/order/1", made.get("RELAYBOX_PRODUCER_TOKENS")))
                    .isNotEqualTo(401);
            assertThat(status(api, "/entities/order/1", TestApp.PRODUCER_TOKEN)).isEqualTo(401);
        } finally {
            first.after();
        }

        DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort, UNSET);
        second.before();
        try {
            assertThat(lines(data.resolve(EmbeddedTokens.FILE))).isEqualTo(made);
            assertThat(status(new Api(second), "/admin/endpoints", made.get("RELAYBOX_ADMIN_TOKENS")))
                    .isEqualTo(200);
        } finally {
            second.after();
        }
    }

    private static int status(Api api, String path, String token) {
        return api.request(path, token).get().getStatus();
    }

    private static Map<String, String> lines(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file);
        return lines.stream()
                .map(line -> line.split("=", 2))
                .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1], (a, b) -> b, LinkedHashMap::new));
    }
}
