package dev.relaybox.workflows.inbound;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InboxEventWorkflowIdTest {

    @Test
    void usesThePartnersEventIdAsIs() {
        assertThat(InboxEventWorkflow.workflowId("stripe", "evt_1NqH2x")).isEqualTo("inbox-stripe-evt_1NqH2x");
    }

    @Test
    void idOfExactlyTheLimitIsKept() {
        String eventId = "e".repeat(InboxEventWorkflow.MAX_WORKFLOW_ID_LENGTH - "inbox-shop-".length());

        assertThat(InboxEventWorkflow.workflowId("shop", eventId)).isEqualTo("inbox-shop-" + eventId)
                .hasSize(InboxEventWorkflow.MAX_WORKFLOW_ID_LENGTH);
    }

    @Test
    void longEventIdIsHashedStablyAndDistinctly() {
        String eventId = "e".repeat(InboxEventWorkflow.MAX_WORKFLOW_ID_LENGTH);

        String id = InboxEventWorkflow.workflowId("shop", eventId);

        // sha256 of 200 "e"s, as `printf 'e%.0s' $(seq 1 200) | sha256sum` prints it.
        assertThat(id).isEqualTo("inbox-shop-sha256-8afd3e3a697de1cc5a00cbe2af0ed27e5a1e173853865334685d068c57ef3d95")
                .isNotEqualTo(InboxEventWorkflow.workflowId("shop", eventId + "f"));
    }
}
