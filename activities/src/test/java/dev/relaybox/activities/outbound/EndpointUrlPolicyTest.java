package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A URL is judged by the address its host resolves to and the port it connects to. */
class EndpointUrlPolicyTest {
    final HostResolver loopback = host -> List.of(InetAddress.getByName("127.0.0.1"));
    final HostResolver publicAddress = host -> List.of(InetAddress.getByName("93.184.215.14"));

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

    @Test
    void aPortOutsideOneTo65535IsRefusedAtRegistration() {
        EndpointUrlPolicy policy = new EndpointUrlPolicy(AddressPolicy.publicOnly(), publicAddress);

        assertThat(policy.problem("http://receiver.example:99999/hooks")).hasValue("url port 99999 is outside 1-65535");
        assertThat(policy.problem("http://receiver.example:0/hooks")).hasValue("url port 0 is outside 1-65535");
        assertThat(policy.problem("http://receiver.example:65535/hooks")).isEmpty();
    }

    @Test
    void aTenantEndpointReachesOnlyTheTenantsNetworksAndIsNeverToldTheOperators() {
        AddressPolicy addresses = AddressPolicy.allowing("127.0.0.0/8,10.0.0.0/8");
        EndpointUrlPolicy operator = new EndpointUrlPolicy(addresses, loopback);
        EndpointUrlPolicy tenant = operator.forTenants();

        assertThat(operator.problem("http://receiver.example:9000/hooks")).isEmpty();
        assertThat(tenant.problem("http://receiver.example:9000/hooks"))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .isEqualTo("url host receiver.example resolves to 127.0.0.1, not a public address;"
                                + " tenant endpoints reach public addresses only")
                        .doesNotContain("10.0.0.0/8", AddressPolicy.SETTING));

        EndpointUrlPolicy tenantWithPublicHost = new EndpointUrlPolicy(addresses, publicAddress).forTenants();
        assertThat(tenantWithPublicHost.problem("http://public.example/hooks")).isEmpty();

        EndpointUrlPolicy tenantOnItsNetwork = new EndpointUrlPolicy(
                        addresses.withTenantNetworks(
                                AddressBlock.parseList("127.0.0.0/8", AddressPolicy.TENANT_SETTING)),
                        loopback)
                .forTenants();
        assertThat(tenantOnItsNetwork.problem("http://receiver.example:9000/hooks"))
                .isEmpty();
    }

    @Test
    void aTenantIsShownRepliesFromPublicAddressesOnly() throws Exception {
        AddressPolicy addresses = AddressPolicy.allowing("10.0.0.0/8")
                .withTenantNetworks(AddressBlock.parseList("10.0.0.0/8", AddressPolicy.TENANT_SETTING));
        InetAddress internal = InetAddress.getByName("10.1.2.3");
        InetAddress external = InetAddress.getByName("93.184.215.14");

        assertThat(new EndpointUrlPolicy(addresses).showsRepliesFrom(internal)).isTrue();
        assertThat(new EndpointUrlPolicy(addresses).forTenants().showsRepliesFrom(internal))
                .isFalse();
        assertThat(new EndpointUrlPolicy(addresses).forTenants().showsRepliesFrom(external))
                .isTrue();
    }
}
