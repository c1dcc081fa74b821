package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A URL is judged by the address its host resolves to and the port it connects to. */
class EndpointUrlPolicyTest {
    final HostResolver loopback = host -> List.of(InetAddress.getByName("127.0.0.1"));

    @Test
    void relayboxsOwnPortIsTheUrlsPortOrItsSchemesDefault() {
        AddressPolicy addresses = AddressPolicy.allowing("127.0.0.0/8")
                .withOwnListeners(OwnListeners.loopbackOnly().add("API", 80).add("admin", 8081));
        EndpointUrlPolicy policy = new EndpointUrlPolicy(addresses, loopback);

        assertThat(policy.problem("http://receiver.example/hooks"))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .isEqualTo("url host receiver.example resolves to 127.0.0.1 port 80 is Relaybox's own API port,"
                                + " refused always"));
        assertThat(policy.problem("http://receiver.example:8081/tasks/gc")).isPresent();
        assertThat(policy.problem("https://receiver.example/hooks")).isEmpty();
        assertThat(policy.problem("http://receiver.example:9000/hooks")).isEmpty();
    }
}
