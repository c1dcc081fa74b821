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

        assertThat(InboxEventWorkflow.workflowId("shop", eventId))
                .isEqualTo("inbox-shop-" + eventId)
                .hasSize(InboxEventWorkflow.MAX_WORKFLOW_ID_LENGTH);
    }

    @Test
    void longEventIdIsHashedStablyAndDistinctly() {
        String eventId = "e".repeat(InboxEventWorkflow.MAX_WORKFLOW_ID_LENGTH);

        String id = InboxEventWorkflow.workflowId("shop", eventId);

        // sha256 of 200 "e"s, as `printf 'e%.0s' $(seq 1 200) | sha256sum` prints it.
        assertThat(id)
                .isEqualTo("inbox-shop~sha256-8afd3e3a697de1cc5a00cbe2af0ed27e5a1e173853865334685d068c57ef3d95")
                .isNotEqualTo(InboxEventWorkflow.workflowId("shop", eventId + "f"));
    }

    @Test
    void partnerAndEventIdSplitDifferentlyMapToDifferentIds() {
        assertThat(InboxEventWorkflow.workflowId("shop", "eu-1"))
                .isNotEqualTo(InboxEventWorkflow.workflowId("shop-eu", "1"));
        assertThat(InboxEventWorkflow.workflowId("a", "---x")).isNotEqualTo(InboxEventWorkflow.workflowId("a-", "-x"));
        assertThat(InboxEventWorkflow.workflowId("a-", "-x")).isNotEqualTo(InboxEventWorkflow.workflowId("a--", "x"));
        assertThat(InboxEventWorkflow.workflowId("shop-eu", "1")).isEqualTo("inbox-shop%2Deu-1");
    }

    @Test
    void anEventIdCannotSpellTheHashedIdOfAnotherEvent() {
        String longEventId = "e".repeat(InboxEventWorkflow.MAX_WORKFLOW_ID_LENGTH);
        String hashed = InboxEventWorkflow.workflowId("shop", longEventId);
        String spelled = hashed.substring("inbox-shop".length() + 1);

        assertThat(InboxEventWorkflow.workflowId("shop", spelled)).isNotEqualTo(hashed);
        assertThat(InboxEventWorkflow.workflowId("shop", "sha256-" + spelled.substring("sha256-".length())))
                .isNotEqualTo(hashed);
    }

    @Test
    void aRecordedIdWins() {
        assertThat(InboxEventWorkflow.workflowIdOf("inbox-shop-eu-1", "shop-eu", "1"))
                .isEqualTo("inbox-shop-eu-1");
        assertThat(InboxEventWorkflow.workflowIdOf(null, "shop-eu", "1")).isEqualTo("inbox-shop%2Deu-1");
    }
}
