package dev.relaybox.service.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relaybox.service.api.ApiError;
import dev.relaybox.service.api.ApiException;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A tenant's minute of test events or resends: spent, the next call waits for the minute's end, and no longer. */
class TenantQuotasTest {
    @Test
    void pastTheMinutesLimitACallIsRefusedUntilTheMinuteEnds() {
        AtomicLong now = new AtomicLong(Instant.parse("2026-12-06T10:00:20Z").toEpochMilli());
        TenantQuotas quotas = new TenantQuotas(now::get);
        quotas.take("acme", "test events", 2);
        quotas.take("acme", "test events", 2);
        quotas.take("globex", "test events", 2);
        quotas.take("acme", "resends", 2);

        assertThatThrownBy(() -> quotas.take("acme", "test events", 2))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.getResponse().getStatus()).isEqualTo(429);
                    assertThat(e.getResponse().getHeaderString("Retry-After")).isEqualTo("40");
                    assertThat(((ApiError) e.getResponse().getEntity()).reason())
                            .isEqualTo("at most 2 test events a minute; try again in 40s");
                });

        now.addAndGet(39_999);
        assertThatThrownBy(() -> quotas.take("acme", "test events", 2)).isInstanceOf(ApiException.class);
        now.addAndGet(1);
        quotas.take("acme", "test events", 2);
    }
}
