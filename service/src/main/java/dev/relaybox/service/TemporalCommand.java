package dev.relaybox.service;

import dev.relaybox.service.config.TemporalConnection;
import dev.relaybox.service.config.TemporalFactory;
import dev.relaybox.service.temporal.TemporalSetup;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.Duration;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code relaybox temporal setup config.yml}: prepares the configured namespace of an external Temporal
 * cluster for Relaybox (the namespace with its retention, and the search attributes), then exits.
 * Idempotent; prints what it created and what already existed.
 */
final class TemporalCommand extends ConfiguredCommand<RelayboxConfiguration> {
    TemporalCommand() {
        super("temporal", "Temporal tasks: 'temporal setup' creates the namespace and registers the search attributes");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("setup").help("what to do on the Temporal cluster");
        subparser
                .addArgument("--retention")
                .setDefault("72h")
                .help("how long Temporal keeps closed workflows of a namespace this creates, e.g. 72h or 7d "
                        + "(an existing namespace keeps its own)");
        subparser
                .addArgument("--wait")
                .setDefault("60s")
                .help("how long to wait for a Temporal frontend that is still starting");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<RelayboxConfiguration> bootstrap, Namespace namespace, RelayboxConfiguration config) {
        TemporalFactory temporal = config.getTemporal();
        if (temporal.isEmbedded()) {
            throw new IllegalArgumentException("temporal.address is 'embedded': the in-process server is set up at "
                    + "start-up; set TEMPORAL_ADDRESS to the cluster's frontend (host:port)");
        }
        var retention =
                duration("--retention", namespace.getString("retention")).toJavaDuration();
        var wait = duration("--wait", namespace.getString("wait")).toJavaDuration();
        // The same connection as the server's: TLS, client certificate and API key from the temporal section.
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
                TemporalConnection.from(temporal).workflowServiceStubsOptions().build());
        try (TemporalSetup setup = new TemporalSetup(stubs, temporal.getNamespace(), wait)) {
            List<TemporalSetup.Step> steps = setup.run(retention);
            steps.forEach(step -> System.out.println(step));
            System.out.printf(
                    "Temporal at %s: namespace %s is ready for Relaybox (%d created, %d already existed)%n",
                    temporal.getAddress(),
                    temporal.getNamespace(),
                    steps.stream().filter(TemporalSetup.Step::created).count(),
                    steps.stream().filter(step -> !step.created()).count());
        } finally {
            stubs.shutdownNow();
        }
    }

    /** {@code 72h}, {@code 7d}, {@code 30m}: Dropwizard's duration format, as in config.yml. */
    static Duration duration(String option, String text) {
        try {
            return Duration.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + text + ": expected a duration such as 72h, 7d or 30m");
        }
    }
}
