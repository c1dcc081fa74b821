package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * The customer portal: where its links point, how long one lasts, which pages may frame it, and what bounds one
 * tenant's endpoints.
 */
public final class PortalFactory {
    /** The address customers reach Relaybox's API port at; the links are {@code <publicUrl>/portal#token=…}. */
    @NotNull
    @JsonProperty
    private String publicUrl = "http://127.0.0.1:8080";

    @NotNull
    @JsonProperty
    private Duration linkTtl = Duration.hours(1);

    /** The longest lifetime a caller may ask for a link. */
    @NotNull
    @JsonProperty
    private Duration maxLinkTtl = Duration.hours(24);

    /**
     * The CSP frame-ancestors of the portal page: {@code none}, or the SaaS's own origins (space-separated) to embed
     * it. {@code none} and {@code self} may be written without the quotes CSP wants.
     */
    @NotNull
    @Pattern(
            regexp = "[A-Za-z0-9:/.*' -]{1,500}",
            message = "must be CSP source expressions, e.g. https://app.example.com")
    @JsonProperty
    private String frameAncestors = "none";

    /**
     * The in-flight limit of every tenant endpoint, which a customer may lower but not raise: one customer's slow
     * endpoint holds at most this many of the worker's HTTP attempts at a time.
     */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    private int maxInFlightPerEndpoint = 8;

    /**
     * At most this many attempts in flight at once across all of one tenant's endpoints: a customer with many slow
     * endpoints holds at most this many of the worker's HTTP attempts (64 by default); 0 for no such bound.
     */
    @Min(0)
    @Max(100_000)
    @JsonProperty
    private int maxInFlightPerTenant = 32;

    /** What one tenant may ask of the portal: see {@link Quotas}. */
    @NotNull
    @Valid
    @JsonProperty
    private Quotas quotas = new Quotas();

    /**
     * Per tenant, in each api process: endpoints in all, and test events, resends and recoveries a minute; past
     * them a 429 with {@code Retry-After}.
     */
    public static final class Quotas {
        @Min(1)
        @JsonProperty
        private int endpoints = 50;

        @Min(1)
        @JsonProperty
        private int testsPerMinute = 10;

        @Min(1)
        @JsonProperty
        private int resendsPerMinute = 60;

        public int endpoints() {
            return endpoints;
        }

        public int testsPerMinute() {
            return testsPerMinute;
        }

        public int resendsPerMinute() {
            return resendsPerMinute;
        }
    }

    public Quotas quotas() {
        return quotas;
    }

    /** The portal's look where a tenant's theme says nothing: {"title", "logoUrl", "accentColor"}. */
    @NotNull
    /**
     * The broker destinations tenants may give their endpoints in the portal, comma-separated ({@code rabbitmq},
     * {@code kafka}, {@code sqs}); none by default: a tenant's endpoints deliver over HTTP.
     */
    @JsonProperty
    @Pattern(
            regexp = "((rabbitmq|kafka|sqs)(\\s*,\\s*(rabbitmq|kafka|sqs))*)?",
            message = "lists destination types, comma-separated: rabbitmq, kafka, sqs")
    private String destinationTypes = "";

    public Set<String> destinationTypes() {
        return destinationTypes.isBlank()
                ? Set.of()
                : Set.copyOf(Arrays.stream(destinationTypes.split(","))
                        .map(String::strip)
                        .toList());
    }

    @JsonProperty
    private Map<String, String> theme = Map.of();

    public Map<String, String> theme() {
        return theme;
    }

    public String publicUrl() {
        return publicUrl.endsWith("/") ? publicUrl.substring(0, publicUrl.length() - 1) : publicUrl;
    }

    public java.time.Duration linkTtl() {
        return linkTtl.toJavaDuration();
    }

    public java.time.Duration maxLinkTtl() {
        return maxLinkTtl.toJavaDuration();
    }

    /** As the CSP header wants it. */
    public String frameAncestors() {
        return frameAncestors.equals("none") || frameAncestors.equals("self")
                ? "'" + frameAncestors + "'"
                : frameAncestors;
    }

    public int maxInFlightPerEndpoint() {
        return maxInFlightPerEndpoint;
    }

    public int maxInFlightPerTenant() {
        return maxInFlightPerTenant;
    }
}
