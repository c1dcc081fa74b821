package dev.relaybox.activities;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactedUrlTest {
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "https://hooks.example.com/T0K3N/abc | https://hooks.example.com/…",
                "https://hooks.example.com/in?key=T0K3N | https://hooks.example.com/…",
                "https://user:T0K3N@hooks.example.com/ | https://hooks.example.com/",
                "http://10.1.2.3:8443#T0K3N | http://10.1.2.3:8443/…",
                "https://[2001:db8::1]:9000/T0K3N | https://[2001:db8::1]:9000/…",
                "https://hooks.example.com | https://hooks.example.com/",
                "not a url T0K3N | (unparseable URL)",
            })
    void showsWhereAWebhookGoesButNoPathQueryOrCredentials(String url, String shown) {
        assertThat(RedactedUrl.of(url)).isEqualTo(shown).doesNotContain("T0K3N");
    }
}
