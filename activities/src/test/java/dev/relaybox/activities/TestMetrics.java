package dev.relaybox.activities;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;

/** A Temporal metrics scope reporting into a Micrometer registry at once, so tests can read workflow metrics. */
public final class TestMetrics {
    private TestMetrics() {}

    public static Scope scope(MeterRegistry registry) {
        return new RootScopeBuilder()
                .reporter(new MicrometerClientStatsReporter(registry))
                .reportEvery(Duration.ofMillis(10));
    }
}
