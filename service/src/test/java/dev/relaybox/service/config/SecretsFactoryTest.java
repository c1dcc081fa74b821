package dev.relaybox.service.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.service.ScratchDirectories;
import dev.relaybox.store.SecretBox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the secrets key comes from: the environment, or in embedded mode the data directory's own file. */
class SecretsFactoryTest {
    @Test
    void embeddedModeMakesAnOwnerOnlyKeyInTheDataDirectoryAndReusesItOnRestart() throws Exception {
        Path data = ScratchDirectories.create("relaybox-secrets");
        SecretsFactory unset = new SecretsFactory();

        SecretBox first = unset.build(data);
        SecretBox afterRestart = unset.build(data);

        Path file = data.resolve(SecretsFactory.EMBEDDED_KEY_FILE);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(afterRestart.currentKeyId()).isEqualTo(first.currentKeyId());
        assertThat(afterRestart.open(first.seal("whsec_x"))).isEqualTo("whsec_x");
    }

    @Test
    void aConfiguredKeyWinsAndOldKeysOnlyOpen() throws Exception {
        String key = SecretBox.newKey();
        String old = SecretBox.newKey();
        SecretsFactory configured = new ObjectMapper()
                .readValue("{\"key\": \"" + key + "\", \"oldKeys\": \" " + old + " ,\"}", SecretsFactory.class);
        Path data = ScratchDirectories.create("relaybox-secrets");

        SecretBox box = configured.build(data);

        assertThat(box.currentKeyId()).isEqualTo(SecretBox.of(key, List.of()).currentKeyId());
        assertThat(box.open(SecretBox.of(old, List.of()).seal("older"))).isEqualTo("older");
        assertThat(Files.exists(data.resolve(SecretsFactory.EMBEDDED_KEY_FILE))).isFalse();
        assertThat(configured.productionProblem()).isNull();
    }

    @Test
    void aKeyOfTheWrongSizeIsRefusedNamingTheVariable() throws Exception {
        SecretsFactory wrong = new ObjectMapper().readValue("{\"key\": \"c2hvcnQ=\"}", SecretsFactory.class);

        assertThatThrownBy(() -> wrong.build(ScratchDirectories.create("relaybox-secrets")))
                .hasMessageContaining("RELAYBOX_SECRETS_KEY")
                .hasMessageContaining("32 random bytes");
        assertThat(new SecretsFactory().productionProblem()).contains("RELAYBOX_SECRETS_KEY");
    }
}
