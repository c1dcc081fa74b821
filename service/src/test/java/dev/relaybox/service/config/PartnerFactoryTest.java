package dev.relaybox.service.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.jackson.Jackson;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** Where a partner's event id may come from: the signed body, or a header only when its scheme signs that header. */
class PartnerFactoryTest {
    private static final String SHOP_SECRET = "whsec_cGFydG5lci1mYWN0b3J5LXRlc3Qtc2VjcmV0LTE=";

    @Test
    void headerEventIdThatTheSchemeDoesNotSignIsRefusedNamingTheCost() {
        String problem = partner("{scheme: github, secrets: s3cret}", "{header: X-GitHub-Delivery}", "")
                .problem("github");

        assertThat(problem)
                .contains("partner 'github'")
                .contains("X-GitHub-Delivery")
                .contains("not signed")
                .contains("trustUnsignedEventIdHeader: true");
        assertThat(partner("{scheme: hmac-sha256, header: X-Sig, secrets: s3cret}", "{header: X-Event-Id}", "")
                        .problem("generic"))
                .contains("X-Event-Id");
    }

    @Test
    void unsignedHeaderEventIdIsAcceptedWhenTheConfigurationTrustsItExplicitly() {
        PartnerFactory trusted = partner(
                "{scheme: github, secrets: s3cret}", "{header: X-GitHub-Delivery}", "trustUnsignedEventIdHeader: true");

        assertThat(trusted.problem("github")).isNull();
    }

    @Test
    void signedHeaderOrBodyEventIdNeedsNoTrust() {
        assertThat(partner("{scheme: standard-webhooks, secrets: " + SHOP_SECRET + "}", "{header: Webhook-Id}", "")
                        .problem("shop"))
                .isNull();
        assertThat(partner("{scheme: stripe, secrets: whsec_x}", "{pointer: /id}", "")
                        .problem("stripe"))
                .isNull();
        assertThat(partner("{scheme: github, secrets: s3cret}", "{pointer: /hook_id}", "")
                        .problem("github"))
                .isNull();
    }

    @Test
    void typeOrAggregateFromAHeaderTheSchemeDoesNotSignIsRefusedUnlessTrusted() {
        String typeInHeader = """
                signature: {scheme: github, secrets: s3cret}
                eventId: {pointer: /hook_id}
                eventType: {header: X-GitHub-Event}
                aggregateId: {pointer: /repository/id}
                aggregateType: repo
                """;
        assertThat(read(typeInHeader).problem("github"))
                .contains(
                        "partner 'github'", "eventType", "X-GitHub-Event", "not signed", "trustUnsignedHeaders: true");
        assertThat(read(typeInHeader + "trustUnsignedHeaders: true\n").problem("github"))
                .isNull();

        String aggregateInHeader = """
                signature: {scheme: hmac-sha256, header: X-Sig, secrets: s3cret}
                eventId: {pointer: /id}
                eventType: {pointer: /type}
                aggregateId: {header: X-Account}
                aggregateType: account
                """;
        assertThat(read(aggregateInHeader).problem("generic")).contains("aggregateId", "X-Account");
        // Trusting every unsigned header trusts the event id's too.
        assertThat(partner(
                                "{scheme: github, secrets: s3cret}",
                                "{header: X-GitHub-Delivery}",
                                "trustUnsignedHeaders: true")
                        .problem("github"))
                .isNull();
    }

    @Test
    void aPartnerNameOrAggregateTypeBeyondWhatKeysAndLabelsTakeIsRefused() {
        PartnerFactory shop =
                partner("{scheme: standard-webhooks, secrets: " + SHOP_SECRET + "}", "{pointer: /id}", "");
        assertThat(shop.problem("p".repeat(101))).contains("partner name", "at most 100");
        assertThat(shop.problem("with space")).contains("partner name");
        assertThat(shop.problem("shop")).isNull();

        String longType = """
                signature: {scheme: standard-webhooks, secrets: %s}
                eventId: {pointer: /id}
                eventType: {pointer: /type}
                aggregateId: {pointer: /data/id}
                aggregateType: %s
                """.formatted(SHOP_SECRET, "a".repeat(101));
        assertThat(read(longType).problem("shop")).contains("aggregateType");
    }

    private static PartnerFactory read(String yaml) {
        try {
            return Jackson.newObjectMapper(new YAMLFactory()).readValue(yaml, PartnerFactory.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PartnerFactory partner(String signature, String eventId, String extra) {
        try {
            return Jackson.newObjectMapper(new YAMLFactory())
                    .readValue("""
                    signature: %s
                    eventId: %s
                    eventType: {pointer: /type}
                    aggregateId: {pointer: /data/id}
                    aggregateType: order
                    %s
                    """.formatted(signature, eventId, extra), PartnerFactory.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
