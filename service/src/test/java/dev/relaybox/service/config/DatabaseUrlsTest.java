package dev.relaybox.service.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DatabaseUrlsTest {
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "jdbc:postgresql://db:5432/relaybox | jdbc:postgresql://db:5432/relaybox",
                "jdbc:postgresql://db:5432/relaybox?user=r&password=s3cret | jdbc:postgresql://db:5432/relaybox",
                "jdbc:postgresql://r:s3cret@db:5432/relaybox | jdbc:postgresql://db:5432/relaybox",
                "jdbc:postgresql://r:s3cret@db1,db2/relaybox?sslpassword=k | jdbc:postgresql://db1,db2/relaybox",
                "jdbc:postgresql://localhost/relaybox;password=s3cret | jdbc:postgresql://localhost/relaybox",
            })
    void showsWhereTheDatabaseIsButNeverCredentialsOrParameters(String url, String shown) {
        assertThat(DatabaseUrls.redacted(url)).isEqualTo(shown).doesNotContain("s3cret");
    }
}
