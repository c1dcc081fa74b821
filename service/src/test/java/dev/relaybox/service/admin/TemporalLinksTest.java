package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where an admin view's workflow link goes: the Temporal UI when one can attach, Relaybox's history view otherwise. */
class TemporalLinksTest {

    @Test
    void withAnEmbeddedServerTheLinkIsRelayboxsOwnHistoryView() {
        TemporalLinks links = new TemporalLinks("http://localhost:8233", "default", true);

        assertThat(links.workflow("inbox-shop-evt 1")).isEqualTo("/admin/workflows/inbox-shop-evt%201");
        assertThat(links.temporalUi("inbox-shop-evt 1")).isNull();
    }

    @Test
    void withAnExternalServerTheLinkIsTheTemporalUiAndTheHistoryViewStaysAvailable() {
        TemporalLinks links = new TemporalLinks("https://temporal.example.com/", "relay box", false);

        assertThat(links.workflow("outbox-1"))
                .isEqualTo("https://temporal.example.com/namespaces/relay%20box/workflows/outbox-1");
        assertThat(TemporalLinks.history("outbox-1")).isEqualTo("/admin/workflows/outbox-1");
    }
}
