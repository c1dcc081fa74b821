package dev.relaybox.service.temporal;

import dev.relaybox.workflows.RelaySearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.RegisterNamespaceRequest;
import io.temporal.common.SearchAttributeKey;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Prepares a Temporal namespace for Relaybox through the SDK's service stubs: the namespace itself (with its
 * retention) and the search attributes the workflows set ({@link RelaySearchAttributes#ALL}). Idempotent:
 * whatever exists is left as it is and reported as such. Used by {@code relaybox temporal setup} against a
 * cluster and by embedded mode at start-up.
 */
public final class TemporalSetup implements AutoCloseable {
    private static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

    /** One thing the setup looked at, and whether it created it or found it. */
    public record Step(String what, boolean created) {
        @Override
        public String toString() {
            return what + ": " + (created ? "created" : "already existed");
        }
    }

    private final WorkflowServiceStubs workflow;
    private final OperatorServiceStubs operator;
    private final String namespace;
    private final Duration patience;

    /**
     * @param workflow stubs for the cluster; the operator stubs are built from their options
     * @param patience how long to wait for a frontend that is still starting, or a namespace that is not
     *     yet visible right after its creation
     */
    public TemporalSetup(WorkflowServiceStubs workflow, String namespace, Duration patience) {
        this.workflow = workflow;
        // The same options: target, TLS and credentials of the workflow stubs apply to the operator service too.
        this.operator = OperatorServiceStubs.newServiceStubs(
                OperatorServiceStubsOptions.newBuilder(workflow.getOptions()).validateAndBuildWithDefaults());
        this.namespace = namespace;
        this.patience = patience;
    }

    /** Everything: waits for the frontend, then the namespace, then the search attributes. */
    public List<Step> run(Duration retention) {
        awaitFrontend();
        List<Step> steps = new ArrayList<>();
        steps.add(ensureNamespace(retention));
        steps.addAll(ensureSearchAttributes());
        return steps;
    }

    void awaitFrontend() {
        // A frontend still starting refuses the connection (UNAVAILABLE), or accepts it and answers only later
        // (a loaded server, a proxy in front of one: the call outlives its deadline). Both mean: not yet.
        retrying(
                Set.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED),
                () -> workflow.blockingStub()
                        .withDeadlineAfter(5, TimeUnit.SECONDS)
                        .getSystemInfo(GetSystemInfoRequest.getDefaultInstance()));
    }

    /** Registers the namespace with {@code retention} unless it exists (its retention is then left alone). */
    public Step ensureNamespace(Duration retention) {
        String what = "namespace " + namespace;
        try {
            workflow.blockingStub()
                    .describeNamespace(DescribeNamespaceRequest.newBuilder()
                            .setNamespace(namespace)
                            .build());
            return new Step(what, false);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
                throw e;
            }
        }
        try {
            workflow.blockingStub()
                    .registerNamespace(RegisterNamespaceRequest.newBuilder()
                            .setNamespace(namespace)
                            .setWorkflowExecutionRetentionPeriod(
                                    com.google.protobuf.Duration.newBuilder().setSeconds(retention.getSeconds()))
                            .build());
            return new Step(what + " (retention " + retention + ")", true);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
                return new Step(what, false);
            }
            throw e;
        }
    }

    /** Registers each of Relaybox's search attributes that the namespace does not have yet. */
    public List<Step> ensureSearchAttributes() {
        Map<String, IndexedValueType> existing = customSearchAttributes();
        List<Step> steps = new ArrayList<>();
        for (SearchAttributeKey<?> key : RelaySearchAttributes.ALL) {
            String what = "search attribute " + key.getName() + " (" + typeName(key.getValueType()) + ")";
            IndexedValueType found = existing == null ? null : existing.get(key.getName());
            if (found != null && found != key.getValueType()) {
                throw new IllegalStateException(what + " exists in namespace " + namespace + " with type "
                        + typeName(found) + "; Relaybox's workflows need " + typeName(key.getValueType()));
            }
            steps.add(new Step(what, found == null && add(key)));
        }
        return steps;
    }

    /** The namespace's custom search attributes, or null where the server cannot list them (the test server). */
    private Map<String, IndexedValueType> customSearchAttributes() {
        try {
            return retrying(
                            Status.Code.NOT_FOUND,
                            () -> operator.blockingStub()
                                    .listSearchAttributes(ListSearchAttributesRequest.newBuilder()
                                            .setNamespace(namespace)
                                            .build()))
                    .getCustomAttributesMap();
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
                return null;
            }
            throw e;
        }
    }

    /** True when this call registered it, false when it was there already. */
    private boolean add(SearchAttributeKey<?> key) {
        try {
            // A namespace created a moment ago may not be visible to every frontend yet.
            retrying(
                    Status.Code.NOT_FOUND,
                    () -> operator.blockingStub()
                            .addSearchAttributes(AddSearchAttributesRequest.newBuilder()
                                    .setNamespace(namespace)
                                    .putSearchAttributes(key.getName(), key.getValueType())
                                    .build()));
            return true;
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
                return false;
            }
            throw e;
        }
    }

    private <T> T retrying(Status.Code transientCode, Supplier<T> call) {
        return retrying(Set.of(transientCode), call);
    }

    private <T> T retrying(Set<Status.Code> transientCodes, Supplier<T> call) {
        Instant deadline = Instant.now().plus(patience);
        while (true) {
            try {
                return call.get();
            } catch (StatusRuntimeException e) {
                if (!transientCodes.contains(e.getStatus().getCode())
                        || Instant.now().isAfter(deadline)) {
                    throw e;
                }
            }
            try {
                Thread.sleep(RETRY_PAUSE.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Temporal", e);
            }
        }
    }

    private static String typeName(IndexedValueType type) {
        return switch (type) {
            case INDEXED_VALUE_TYPE_INT -> "Int";
            case INDEXED_VALUE_TYPE_KEYWORD_LIST -> "KeywordList";
            default -> "Keyword";
        };
    }

    /** Closes the operator stubs; the workflow stubs belong to the caller. */
    @Override
    public void close() {
        operator.shutdownNow();
    }
}
