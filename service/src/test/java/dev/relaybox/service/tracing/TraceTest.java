package dev.relaybox.service.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ShopWebhooks;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One trace from the producer's request to the receiver: the producer's span (its {@code traceparent} on
 * {@code POST /outbox}) is the parent of Relaybox's span for the request, whose context is stored with the row; each
 * attempt of the delivery workflow is its child, and the receiver gets the attempt's {@code traceparent}. A dead
 * letter is a span with its reason in the same trace. Inbound, a partner's request leads to each decision on its
 * event (a deferral marked) and on to the deliveries of the events the decision emits. Spans are read from the SDK's
 * in-memory exporter.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TraceTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final int ENGINE_PORT = TestApp.freePort();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ENGINE_PORT,
            ConfigOverride.config("delivery.retryDelays", "1s"),
            ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);
    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
    static OpenTelemetrySdk sdk;

    @BeforeAll
    static void installAnSdkThatKeepsItsSpans() {
        GlobalOpenTelemetry.resetForTest();
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(SPANS))
                        .build())
                .build();
        GlobalOpenTelemetry.set(sdk);
        endpoint("traced", "/traced", "order.shipped");
        endpoint("emitted", "/emitted", "order.payment_confirmed");
        endpoint("broken", "/broken", "invoice.*");
        RECEIVER.script("/broken", TestReceiver.Reply.of(503));
    }

    @AfterAll
    static void removeTheSdk() {
        GlobalOpenTelemetry.resetForTest();
        sdk.close();
        RECEIVER.close();
    }

    @Test
    void theReceiversTraceparentContinuesTheProducersTraceThroughTheWorkflowsAttempt() {
        String producerTrace = hex(16);
        String producerSpan = hex(8);

        String outboxId = enqueue("order.shipped", "order", "00-" + producerTrace + "-" + producerSpan + "-01");

        TestReceiver.Received received = await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/traced"), got -> !got.isEmpty())
                .get(0);
        String[] receiverParent = received.header("traceparent").split("-");
        assertThat(receiverParent[1]).as("the receiver's trace").isEqualTo(producerTrace);

        SpanData request = span("POST /outbox", producerTrace);
        assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(request.getParentSpanId())
                .as("a child of the producer's span")
                .isEqualTo(producerSpan);
        assertThat(request.getAttributes().get(AttributeKey.stringKey("relaybox.outbox_id")))
                .isEqualTo(outboxId);

        SpanData attempt = span("webhook traced", producerTrace);
        assertThat(attempt.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(attempt.getParentSpanId())
                .as("a child of the request's span")
                .isEqualTo(request.getSpanId());
        assertThat(attempt.getAttributes().get(AttributeKey.stringKey("relaybox.workflow_id")))
                .isEqualTo("outbox-" + outboxId);
        assertThat(attempt.getAttributes().get(AttributeKey.longKey("relaybox.attempt")))
                .isEqualTo(1L);
        assertThat(attempt.getAttributes().get(AttributeKey.longKey("http.response.status_code")))
                .isEqualTo(200L);
        assertThat(attempt.getAttributes().get(AttributeKey.stringKey("relaybox.outcome")))
                .isEqualTo("delivered");
        assertThat(receiverParent[2])
                .as("the receiver's parent span is the attempt")
                .isEqualTo(attempt.getSpanId());
        assertThat(API.adminGet("/admin/story?q=" + outboxId)
                        .path("outbox")
                        .path(0)
                        .path("traceId")
                        .asText())
                .as("the story names the trace")
                .isEqualTo(producerTrace);
        assertThat(staticDetails("outbox-" + outboxId))
                .as("the workflow's details in the Temporal UI name it too")
                .contains("trace " + producerTrace);
    }

    @Test
    void aDeadLetterIsASpanWithItsReasonInTheEventsTrace() {
        String outboxId = enqueue("invoice.overdue", "invoice", null);

        SpanData deadLetter = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> SPANS.getFinishedSpanItems().stream()
                                .filter(span -> span.getName().equals("dead-letter broken"))
                                .filter(span -> ("outbox-" + outboxId)
                                        .equals(span.getAttributes()
                                                .get(AttributeKey.stringKey("relaybox.workflow_id"))))
                                .findFirst()
                                .orElse(null),
                        found -> found != null);
        String trace = deadLetter.getTraceId();
        SpanData request = span("POST /outbox", trace);
        assertThat(request.getParentSpanContext().isValid())
                .as("no producer span: the request starts the trace")
                .isFalse();
        assertThat(deadLetter.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(deadLetter.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(deadLetter.getEvents()).singleElement().satisfies(event -> {
            assertThat(event.getName()).isEqualTo("dead_letter");
            assertThat(event.getAttributes().get(AttributeKey.stringKey("reason")))
                    .contains("503");
        });
        List<SpanData> attempts = SPANS.getFinishedSpanItems().stream()
                .filter(span ->
                        span.getTraceId().equals(trace) && span.getName().equals("webhook broken"))
                .toList();
        assertThat(attempts)
                .extracting(span -> span.getAttributes().get(AttributeKey.longKey("relaybox.attempt")))
                .containsExactlyInAnyOrder(1L, 2L);
        assertThat(attempts).allSatisfy(span -> {
            assertThat(span.getParentSpanId()).isEqualTo(request.getSpanId());
            assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        });
    }

    @Test
    void aPartnersTraceLeadsThroughEachDecisionOnItsEventToTheDeliveriesOfWhatItEmits() {
        String partnerTrace = hex(16);
        String order = "T-" + hex(4);

        // Paid before created: deferred first, applied when order.created releases it; then it emits.
        assertThat(partnerSends("evt-paid-" + order, "order.paid", order, "00-" + partnerTrace + "-" + hex(8) + "-01"))
                .isEqualTo(200);
        SpanData deferred = span("inbound order.paid", partnerTrace);
        assertThat(deferred.getEvents()).singleElement().satisfies(event -> {
            assertThat(event.getName()).isEqualTo("deferred");
            assertThat(event.getAttributes().get(AttributeKey.stringKey("reason")))
                    .contains("order.created");
        });
        assertThat(partnerSends("evt-created-" + order, "order.created", order, null))
                .isEqualTo(200);

        TestReceiver.Received received = await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/emitted"), got -> !got.isEmpty())
                .get(0);
        String[] receiverParent = received.header("traceparent").split("-");
        assertThat(receiverParent[1])
                .as("the receiver's trace is the partner's")
                .isEqualTo(partnerTrace);

        SpanData intake = span("POST /webhooks/shop", partnerTrace);
        assertThat(intake.getKind()).isEqualTo(SpanKind.SERVER);
        List<SpanData> decisions = SPANS.getFinishedSpanItems().stream()
                .filter(span ->
                        span.getTraceId().equals(partnerTrace) && span.getName().equals("inbound order.paid"))
                .toList();
        assertThat(decisions)
                .extracting(span -> span.getAttributes().get(AttributeKey.stringKey("relaybox.outcome")))
                .as("a decision span for each run: deferred, then applied on its release")
                .contains("deferred", "applied");
        assertThat(decisions)
                .allSatisfy(span -> assertThat(span.getParentSpanId()).isEqualTo(intake.getSpanId()));
        SpanData applied = decisions.stream()
                .filter(span -> "applied".equals(span.getAttributes().get(AttributeKey.stringKey("relaybox.outcome"))))
                .findFirst()
                .orElseThrow();
        SpanData attempt = span("webhook emitted", partnerTrace);
        assertThat(attempt.getParentSpanId()).as("the emitted event's delivery").isEqualTo(applied.getSpanId());
        assertThat(receiverParent[2]).isEqualTo(attempt.getSpanId());
        List<String> storyTraces = new ArrayList<>();
        API.adminGet("/admin/story?q=evt-paid-" + order)
                .path("inbox")
                .forEach(step -> storyTraces.add(step.path("traceId").asText()));
        assertThat(storyTraces)
                .as("the story names each partner request's trace")
                .contains(partnerTrace);
    }

    private static String staticDetails(String workflowId) {
        WorkflowServiceStubs engine = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                .setTarget("127.0.0.1:" + ENGINE_PORT)
                .build());
        try {
            return WorkflowClient.newInstance(engine)
                    .newUntypedWorkflowStub(workflowId)
                    .describe()
                    .getStaticDetails();
        } finally {
            engine.shutdownNow();
        }
    }

    /** A webhook from the example partner "shop", signed, with the partner's own span as traceparent if any. */
    private static int partnerSends(String eventId, String type, String order, String traceparent) {
        String body = "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + order + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        try (Response response = API.request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(eventId, timestamp, body))
                .header("traceparent", traceparent)
                .post(Entity.entity(body, MediaType.APPLICATION_JSON))) {
            return response.getStatus();
        }
    }

    private static void endpoint(String name, String path, String eventTypes) {
        API.endpoint(name, RECEIVER.url(path), eventTypes);
    }

    /** Posts an event as a producer whose own span is {@code traceparent} (none when null); returns its id. */
    private static String enqueue(String eventType, String aggregateType, String traceparent) {
        String body = "{\"eventType\": \"" + eventType + "\", \"aggregateType\": \"" + aggregateType
                + "\", \"aggregateId\": \"7\", \"payload\": {\"n\": 7}}";
        try (Response response = API.request("/outbox", TestApp.PRODUCER_TOKEN)
                .header("traceparent", traceparent)
                .post(Entity.entity(body, MediaType.APPLICATION_JSON))) {
            assertThat(response.getStatus()).isEqualTo(202);
            return Api.Answer.of(response).text("id");
        }
    }

    private static SpanData span(String name, String traceId) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> SPANS.getFinishedSpanItems().stream()
                                .filter(span -> span.getName().equals(name)
                                        && span.getTraceId().equals(traceId))
                                .findFirst()
                                .orElse(null),
                        found -> found != null);
    }

    private static String hex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        random[0] |= 1; // never all zeros, which W3C trace context treats as no trace
        return HexFormat.of().formatHex(random);
    }
}
