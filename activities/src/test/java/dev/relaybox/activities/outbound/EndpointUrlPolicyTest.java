package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The deny list, address by address; the host resolves to exactly the address under test. */
class EndpointUrlPolicyTest {

    @ParameterizedTest(name = "{0}: refused in production {1}, in embedded mode {2}")
    @CsvSource({
        // cloud metadata: refused even where private networks are allowed
        "169.254.169.254, true, true",
        "169.254.170.2, true, true",
        "168.63.129.16, true, true",
        "100.100.100.200, true, true",
        "fd00:ec2::254, true, true",
        "::ffff:169.254.169.254, true, true",
        // IANA IPv4 special-purpose blocks, multicast, broadcast
        "0.0.0.0, true, false",
        "10.1.2.3, true, false",
        "100.64.0.1, true, false",
        "100.127.255.254, true, false",
        "127.0.0.1, true, false",
        "169.254.1.1, true, false",
        "172.16.0.1, true, false",
        "172.31.255.255, true, false",
        "192.0.0.8, true, false",
        "192.0.0.170, true, false",
        "192.0.2.1, true, false",
        "192.31.196.1, true, false",
        "192.52.193.1, true, false",
        "192.88.99.1, true, false",
        "192.168.1.1, true, false",
        "192.175.48.1, true, false",
        "198.18.0.1, true, false",
        "198.19.255.255, true, false",
        "198.51.100.7, true, false",
        "203.0.113.9, true, false",
        "224.0.0.1, true, false",
        "239.255.255.250, true, false",
        "240.0.0.1, true, false",
        "255.255.255.255, true, false",
        // IANA IPv6 special-purpose blocks, multicast, site-local
        "::, true, false",
        "::1, true, false",
        "::ffff:10.0.0.1, true, false",
        "::ffff:127.0.0.1, true, false",
        "64:ff9b::a00:1, true, false",
        "64:ff9b:1::1, true, false",
        "100::1, true, false",
        "2001::1, true, false",
        "2001:2::1, true, false",
        "2001:db8::1, true, false",
        "2002:a00:1::1, true, false",
        "2620:4f:8000::1, true, false",
        "3fff::1, true, false",
        "5f00::1, true, false",
        "fc00::1, true, false",
        "fd12:3456::1, true, false",
        "fe80::1, true, false",
        "fec0::1, true, false",
        "ff02::1, true, false",
        // public addresses: allowed everywhere
        "8.8.8.8, false, false",
        "93.184.216.34, false, false",
        "100.63.255.255, false, false",
        "100.128.0.1, false, false",
        "172.32.0.1, false, false",
        "192.0.1.1, false, false",
        "198.20.0.1, false, false",
        "2606:4700::1111, false, false",
        "2001:4860:4860::8888, false, false",
    })
    void refusesSpecialPurposeAddresses(String address, boolean refusedInProduction, boolean refusedEmbedded)
            throws Exception {
        InetAddress resolved = InetAddress.getByName(address);
        HostResolver resolver = host -> List.of(resolved);

        assertThat(new EndpointUrlPolicy(false, resolver)
                        .problem("https://receiver.example/hooks")
                        .isPresent())
                .as("refused when private networks are not allowed")
                .isEqualTo(refusedInProduction);
        assertThat(new EndpointUrlPolicy(true, resolver)
                        .problem("https://receiver.example/hooks")
                        .isPresent())
                .as("refused when private networks are allowed")
                .isEqualTo(refusedEmbedded);
    }
}
