package dev.relaybox.service;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** A trivial workflow that proves a round trip through the embedded Temporal server over its port. */
@WorkflowInterface
public interface PingWorkflow {
    @WorkflowMethod
    String ping(String name);

    final class Impl implements PingWorkflow {
        @Override
        public String ping(String name) {
            return "pong " + name;
        }
    }
}
