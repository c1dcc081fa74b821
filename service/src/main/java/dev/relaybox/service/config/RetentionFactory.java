package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.store.Retention;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.Locale;

/**
 * How long finished rows are kept, and how the purge runs. Each age is a duration ({@code 7d}, {@code 12h}) or
 * {@code off} / {@code 0} to keep that kind forever; an interval of {@code off} stops purging altogether.
 */
public final class RetentionFactory {
    private static final Duration OFF = Duration.seconds(0);

    private Duration deliveredOutbox = Duration.days(7);
    private Duration processedInbox = Duration.days(7);
    private Duration closedDeadLetters = Duration.days(30);
    private Duration interval = Duration.minutes(10);

    /** Rows per batch; each batch is one short transaction. */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    private int batchSize = 500;

    @JsonProperty
    void setDeliveredOutbox(String age) {
        deliveredOutbox = parse(age);
    }

    @JsonProperty
    void setProcessedInbox(String age) {
        processedInbox = parse(age);
    }

    @JsonProperty
    void setClosedDeadLetters(String age) {
        closedDeadLetters = parse(age);
    }

    @JsonProperty
    void setInterval(String every) {
        interval = parse(every);
    }

    /** {@code off}, {@code 0} or empty is zero (keep forever); anything else a Dropwizard duration such as {@code 7d}. */
    static Duration parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (value.isEmpty() || value.equals("off") || value.equals("0")) {
            return OFF;
        }
        return Duration.parse(value);
    }

    public Retention.Ages ages() {
        return new Retention.Ages(
                deliveredOutbox.toJavaDuration(), processedInbox.toJavaDuration(), closedDeadLetters.toJavaDuration());
    }

    public int getBatchSize() {
        return batchSize;
    }

    /** Zero when purging is off. */
    public java.time.Duration getInterval() {
        return interval.toJavaDuration();
    }
}
