package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The address policy, address by address, without a network. */
class AddressPolicyTest {
    static final AddressPolicy NOTHING_LISTED = AddressPolicy.publicOnly();
    static final AddressPolicy EVERYTHING_LISTED =
            AddressPolicy.allowing("0.0.0.0/0,::/0,0.0.0.0/8,127.0.0.0/8,::/128,::1/128");

    @ParameterizedTest(name = "{0}: refused with nothing listed {1}, with every block listed {2}")
    @CsvSource({
        // cloud metadata: refused always, in any form
        "169.254.169.254, true, true",
        "169.254.170.2, true, true",
        "168.63.129.16, true, true",
        "100.100.100.200, true, true",
        "fd00:ec2::254, true, true",
        "::ffff:169.254.169.254, true, true",
        "::169.254.169.254, true, true",
        "64:ff9b::a9fe:a9fe, true, true",
        "2002:a9fe:a9fe::1, true, true",
        "64:ff9b::6464:64c8, true, true",
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
        "::127.0.0.1, true, false",
        "::10.0.0.1, true, false",
        "64:ff9b::a00:1, true, false",
        "64:ff9b::7f00:1, true, false",
        "64:ff9b:1::1, true, false",
        "100::1, true, false",
        "2001::1, true, false",
        "2001:2::1, true, false",
        "2001:db8::1, true, false",
        "2002:a00:1::1, true, false",
        "2002:7f00:1::1, true, false",
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
        // IPv6 forms of a public IPv4 address are as public as it (NAT64 is how IPv6-only hosts reach IPv4)
        "64:ff9b::808:808, false, false",
        "2002:808:808::1, false, false",
        "::ffff:8.8.8.8, false, false",
    })
    void refusesSpecialPurposeAddressesUnlessListedAndMetadataAlways(
            String address, boolean refusedWithNothingListed, boolean refusedWithEverythingListed) throws Exception {
        InetAddress resolved = InetAddress.getByName(address);

        assertThat(NOTHING_LISTED.refusal(resolved, 443).isPresent())
                .as("refused with nothing listed")
                .isEqualTo(refusedWithNothingListed);
        assertThat(EVERYTHING_LISTED.refusal(resolved, 443).isPresent())
                .as("refused with every block listed")
                .isEqualTo(refusedWithEverythingListed);
    }

    @Test
    void anAllowListOpensTheBlocksItNamesAndNoOthers() throws Exception {
        AddressPolicy policy = AddressPolicy.allowing("10.0.0.0/8, fd12::/16");

        assertThat(policy.refusal(InetAddress.getByName("10.1.2.3"), 443)).isEmpty();
        assertThat(policy.refusal(InetAddress.getByName("fd12:3456::1"), 443)).isEmpty();
        assertThat(policy.refusal(InetAddress.getByName("64:ff9b::a01:203"), 443))
                .as("NAT64 form of 10.1.2.3")
                .isEmpty();
        assertThat(policy.refusal(InetAddress.getByName("192.168.1.1"), 443))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .contains("192.168.1.1 is in 192.168.0.0/16 (private-use)")
                        .contains("not in ALLOWED_PRIVATE_NETWORKS (10.0.0.0/8,fd12::/16)"));
        assertThat(policy.refusal(InetAddress.getByName("127.0.0.1"), 443)).isPresent();
    }

    @Test
    void loopbackAndTheUnspecifiedAddressAreOpenedOnlyByAnEntryInsideTheirOwnBlock() throws Exception {
        AddressPolicy broad = AddressPolicy.allowing("0.0.0.0/0,::/0");
        AddressPolicy explicit = AddressPolicy.allowing("127.0.0.0/8,::1,0.0.0.0/32");

        for (String address : new String[] {"127.0.0.1", "::1", "0.0.0.0", "::", "64:ff9b::7f00:1", "::127.0.0.1"}) {
            assertThat(broad.refusal(InetAddress.getByName(address), 443))
                    .as("%s with 0.0.0.0/0,::/0 listed", address)
                    .isPresent();
        }
        for (String address : new String[] {"127.0.0.1", "127.9.9.9", "::1", "0.0.0.0", "64:ff9b::7f00:1"}) {
            assertThat(explicit.refusal(InetAddress.getByName(address), 443))
                    .as("%s with loopback listed", address)
                    .isEmpty();
        }
        assertThat(explicit.refusal(InetAddress.getByName("::"), 443))
                .as(":: is not listed")
                .isPresent();
    }

    @Test
    void relayboxsOwnPortsOnThisHostAreRefusedWhateverIsListed() throws Exception {
        InetAddress hostAddress = InetAddress.getByName("10.0.0.5");
        AddressPolicy policy = AddressPolicy.allowing("127.0.0.0/8,0.0.0.0/8,::1,::,10.0.0.0/8")
                .withOwnListeners(
                        new OwnListeners(Set.of(hostAddress)).add("admin", 8081).add("API", 8080));

        for (String address :
                new String[] {"127.0.0.1", "127.0.0.2", "::1", "0.0.0.0", "::", "64:ff9b::7f00:1", "10.0.0.5"}) {
            assertThat(policy.refusal(InetAddress.getByName(address), 8081))
                    .as("%s port 8081", address)
                    .hasValueSatisfying(reason -> assertThat(reason).contains("Relaybox's own admin port"));
        }
        assertThat(policy.refusal(InetAddress.getByName("127.0.0.1"), 8080))
                .hasValueSatisfying(reason -> assertThat(reason).contains("Relaybox's own API port"));
        assertThat(policy.refusal(InetAddress.getByName("10.0.0.6"), 8081))
                .as("another machine's port 8081")
                .isEmpty();
        assertThat(policy.refusal(InetAddress.getByName("127.0.0.1"), 9000))
                .as("a local receiver")
                .isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "10.0.0.0/33",
                "10.0.0/8",
                "999.1.1.1",
                "receiver.example",
                "10.0.0.0/8/1",
                "::1/129",
                "10.0.0.0/x"
            })
    void anEntryThatIsNotACidrBlockIsRefusedNamingIt(String entry) {
        assertThatThrownBy(() -> AddressPolicy.allowing("10.0.0.0/8," + entry))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"" + entry + "\" is not a CIDR block");
    }
}
