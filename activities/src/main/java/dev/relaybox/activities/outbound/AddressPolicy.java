package dev.relaybox.activities.outbound;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Whether Relaybox may send a webhook to one address and port. No I/O: the caller resolves, this decides.
 *
 * <ul>
 *   <li>Cloud metadata addresses: refused always.
 *   <li>Relaybox's own listeners on this host ({@link OwnListeners}): refused always.
 *   <li>Special-purpose addresses (private, loopback, link-local, ...): refused unless a block of the allow-list
 *       holds them; loopback and the unspecified address only by an entry inside their own block.
 *   <li>Anything else (public): allowed.
 * </ul>
 *
 * IPv6 forms that carry an IPv4 address are judged by that address.
 *
 * <p>A tenant's endpoint is judged by the policy {@link #forTenants} gives: the same rules over the tenants' own
 * allow-list, which is not the operator's, and refusals that never list either (a tenant is a stranger, and the
 * operator's networks are none of its business).
 */
public final class AddressPolicy {
    /** The setting that holds the allow-list, named in refusals so the operator knows what to change. */
    public static final String SETTING = "ALLOWED_PRIVATE_NETWORKS";
    /** The setting that holds the tenants' allow-list. */
    public static final String TENANT_SETTING = "TENANT_ALLOWED_PRIVATE_NETWORKS";

    private final List<AddressBlock> allowedPrivateNetworks;
    private final List<AddressBlock> tenantNetworks;
    private final OwnListeners own;
    private final boolean tenants;

    /** The operator's policy; tenants reach public addresses only until {@link #withTenantNetworks} says more. */
    public AddressPolicy(List<AddressBlock> allowedPrivateNetworks, OwnListeners own) {
        this(allowedPrivateNetworks, List.of(), own, false);
    }

    private AddressPolicy(
            List<AddressBlock> allowedPrivateNetworks,
            List<AddressBlock> tenantNetworks,
            OwnListeners own,
            boolean tenants) {
        this.allowedPrivateNetworks = List.copyOf(allowedPrivateNetworks);
        this.tenantNetworks = List.copyOf(tenantNetworks);
        this.own = own;
        this.tenants = tenants;
    }

    /** Public addresses only. */
    public static AddressPolicy publicOnly() {
        return new AddressPolicy(List.of(), OwnListeners.loopbackOnly());
    }

    /** Public addresses and the comma-separated CIDR blocks {@code cidrs}. */
    public static AddressPolicy allowing(String cidrs) {
        return new AddressPolicy(AddressBlock.parseList(cidrs, SETTING), OwnListeners.loopbackOnly());
    }

    public AddressPolicy withOwnListeners(OwnListeners listeners) {
        return new AddressPolicy(allowedPrivateNetworks, tenantNetworks, listeners, tenants);
    }

    /** The special-purpose blocks tenants' endpoints may reach. */
    public AddressPolicy withTenantNetworks(List<AddressBlock> blocks) {
        return new AddressPolicy(allowedPrivateNetworks, blocks, own, tenants);
    }

    /** The policy for tenants' endpoints: their own allow-list, the same own listeners, refusals that list nothing. */
    public AddressPolicy forTenants() {
        return new AddressPolicy(tenantNetworks, tenantNetworks, own, true);
    }

    /** Whether this is the tenants' policy ({@link #forTenants}). */
    public boolean judgesTenants() {
        return tenants;
    }

    /** An address outside every special-purpose block (what {@link #refusal} allows without an allow-list). */
    public static boolean isPublic(InetAddress address) {
        InetAddress judged = SpecialPurposeAddresses.embeddedIpv4(address);
        return SpecialPurposeAddresses.find(SpecialPurposeAddresses.SPECIAL_PURPOSE, judged)
                        .isEmpty()
                && SpecialPurposeAddresses.find(SpecialPurposeAddresses.CLOUD_METADATA, judged)
                        .isEmpty();
    }

    public List<AddressBlock> allowedPrivateNetworks() {
        return allowedPrivateNetworks;
    }

    public OwnListeners ownListeners() {
        return own;
    }

    /** Why {@code address}:{@code port} is refused, or empty when a webhook may be sent there. */
    public Optional<String> refusal(InetAddress address, int port) {
        InetAddress judged = SpecialPurposeAddresses.embeddedIpv4(address);
        String shown = address.getHostAddress()
                + (judged.equals(address) ? "" : " (carrying " + judged.getHostAddress() + ")");
        Optional<AddressBlock> metadata = SpecialPurposeAddresses.find(SpecialPurposeAddresses.CLOUD_METADATA, judged)
                .or(() -> SpecialPurposeAddresses.find(SpecialPurposeAddresses.CLOUD_METADATA, address));
        if (tenants && (metadata.isPresent() || own.at(judged, port).isPresent())) {
            return Optional.of(shown + " port " + port + " is refused always");
        }
        if (metadata.isPresent()) {
            return Optional.of(shown + " is in " + describe(metadata.get()) + ", refused always");
        }
        Optional<String> listener = own.at(judged, port);
        if (listener.isPresent()) {
            return Optional.of(
                    shown + " port " + port + " is Relaybox's own " + listener.get() + " port, refused always");
        }
        Optional<AddressBlock> special = SpecialPurposeAddresses.find(SpecialPurposeAddresses.SPECIAL_PURPOSE, judged);
        if (special.isEmpty() || allowed(judged)) {
            return Optional.empty();
        }
        if (tenants) {
            return Optional.of(shown + ", not a public address; tenant endpoints reach public addresses only");
        }
        return Optional.of(shown + " is in " + describe(special.get()) + " and not in " + SETTING + " ("
                + (allowedPrivateNetworks.isEmpty()
                        ? "empty"
                        : allowedPrivateNetworks.stream()
                                .map(AddressBlock::cidr)
                                .collect(Collectors.joining(",")))
                + ")");
    }

    private boolean allowed(InetAddress address) {
        Optional<AddressBlock> thisHost = SpecialPurposeAddresses.find(SpecialPurposeAddresses.THIS_HOST, address);
        return allowedPrivateNetworks.stream()
                .filter(entry -> entry.contains(address))
                .anyMatch(entry -> thisHost.isEmpty() || thisHost.get().encloses(entry));
    }

    private static String describe(AddressBlock block) {
        return block.cidr() + " (" + block.name() + ")";
    }
}
