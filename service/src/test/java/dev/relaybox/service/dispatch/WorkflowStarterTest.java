package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WorkflowStarterTest {
    @Test
    void aFairnessKeyStaysWithinTheEnginesLimitAndApartFromOthersThatShareItsStart() {
        String partner = "p".repeat(90);
        String other = "p".repeat(89) + "q";

        assertThat(WorkflowStarter.fairnessKey(partner)).hasSizeLessThanOrEqualTo(64);
        assertThat(WorkflowStarter.fairnessKey(partner)).isNotEqualTo(WorkflowStarter.fairnessKey(other));
        assertThat(WorkflowStarter.fairnessKey("acme")).isEqualTo("acme");
        assertThat(WorkflowStarter.fairnessKey("x".repeat(64))).isEqualTo("x".repeat(64));
        assertThat(WorkflowStarter.fairnessKey(null)).isEmpty();
    }
}
