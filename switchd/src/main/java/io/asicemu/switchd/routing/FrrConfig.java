package io.asicemu.switchd.routing;

import io.asicemu.pipeline.config.BgpConfig;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.table.IpPrefix;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * FRR's configuration (one integrated frr.conf for zebra, bgpd, staticd, bfdd) rendered from CONFIG_DB the way
 * SONiC's bgpcfgd renders docker-fpm-frr's templates (sonic-buildimage {@code dockers/docker-fpm-frr/frr}:
 * {@code zebra/zebra.conf.j2}, {@code bgpd/bgpd.main.conf.j2}, {@code bgpd/templates/general/*.j2}): zebra streams
 * routes to asic-emu's FPM listener with the next hops inside each route ({@code no fpm use-next-hop-groups}); bgpd
 * runs one instance with the switch's ASN, peer groups PEER_V4/PEER_V6 with their permit-all route maps, multipath
 * on (as-path relaxed, 64 paths, so a leaf's ECMP over its spines comes from BGP), and one neighbor statement block
 * per BGP_NEIGHBOR (timers only when they differ from 60/180 s, {@code timers connect 10}, {@code shutdown} for
 * admin_status down, {@code bfd} with its timers).
 * <p>
 * What the switch announces with no more config than that: its loopback addresses (SONiC's {@code network
 * <Loopback0>/32}) and the subnets of its interfaces (INTERFACE, VLAN_INTERFACE) that hold no BGP neighbor — the
 * hosts' subnets, as SONiC's ToR template announces its VLAN subnets; the point-to-point links to its peers are not
 * announced. Differences from SONiC, on purpose: an IPv6 loopback is announced as its /128 (SONiC's default is the
 * /64 around it); {@code bgp suppress-fib-pending} is left out (the FPM listener sends zebra no installation
 * results); {@code local_addr} is checked but, as in SONiC's template, not rendered. Stateless.
 */
public final class FrrConfig {
    /** ECMP paths per prefix (FRR's Debian build takes at most 256). */
    static final int MAXIMUM_PATHS = 64;

    /** zebra's FPM port, where asic-emu's listener waits (FRR's default, as SONiC's fpmsyncd). */
    public static final int FPM_PORT = 2620;

    private FrrConfig() {}

    /**
     * @param db the running config (checked: {@link BgpConfig#parse} accepted it).
     * @return frr.conf's text.
     */
    public static String render(final ConfigDb db) {
        return render(db, FPM_PORT);
    }

    /**
     * @param db the running config (checked: {@link BgpConfig#parse} accepted it).
     * @param fpmPort the FPM listener's port on 127.0.0.1.
     * @return frr.conf's text.
     */
    public static String render(final ConfigDb db, final int fpmPort) {
        final BgpConfig bgp = BgpConfig.parse(db);
        final Map<String, String> device = db.table("DEVICE_METADATA").getOrDefault("localhost", Map.of());
        final StringBuilder out = new StringBuilder();
        out.append("! Rendered by asic-emu from CONFIG_DB (DEVICE_METADATA, LOOPBACK_INTERFACE, BGP_NEIGHBOR,\n")
                .append("! INTERFACE, VLAN_INTERFACE) as SONiC's bgpcfgd renders docker-fpm-frr's templates.\n")
                .append("frr defaults traditional\n")
                .append("hostname ")
                .append(device.getOrDefault("hostname", "asic-emu"))
                .append('\n')
                .append("log stdout informational\n")
                .append("service integrated-vtysh-config\n")
                .append("!\n")
                .append("! zebra: routes and their next hops to asic-emu's FPM listener, as to SONiC's fpmsyncd\n")
                .append("no fpm use-next-hop-groups\n")
                .append("fpm address 127.0.0.1 port ")
                .append(fpmPort)
                .append('\n')
                .append("!\n");
        if (!bgp.enabled()) {
            return out.append("! no DEVICE_METADATA|localhost|bgp_asn: no BGP\n")
                    .toString();
        }
        final List<IpPrefix> loopbacks = new ArrayList<>();
        bgp.loopbacks().values().forEach(loopbacks::addAll);
        for (final IpPrefix a : loopbacks) {
            if (!a.v6()) {
                out.append("ip prefix-list PL_LoopbackV4 permit ")
                        .append(text(a))
                        .append('\n');
                break;
            }
        }
        out.append("!\nrouter bgp ").append(bgp.asn()).append('\n');
        if (bgp.routerId() != null) {
            out.append(" bgp router-id ").append(address(bgp.routerId())).append('\n');
        }
        out.append(" bgp log-neighbor-changes\n")
                .append(" no bgp default ipv4-unicast\n")
                .append(" no bgp ebgp-requires-policy\n")
                .append(" bgp bestpath as-path multipath-relax\n")
                .append(" neighbor PEER_V4 peer-group\n")
                .append(" neighbor PEER_V6 peer-group\n");
        for (final BgpConfig.Neighbor n : bgp.neighbors()) {
            final String a = address(n.address());
            out.append(" neighbor ")
                    .append(a)
                    .append(" remote-as ")
                    .append(n.asn())
                    .append('\n');
            out.append(" neighbor ")
                    .append(a)
                    .append(" peer-group ")
                    .append(n.address().v6() ? "PEER_V6" : "PEER_V4")
                    .append('\n');
            if (!n.name().isEmpty()) {
                out.append(" neighbor ")
                        .append(a)
                        .append(" description ")
                        .append(n.name())
                        .append('\n');
            }
            if (n.keepaliveS() != BgpConfig.DEFAULT_KEEPALIVE_S || n.holdtimeS() != BgpConfig.DEFAULT_HOLDTIME_S) {
                out.append(" neighbor ")
                        .append(a)
                        .append(" timers ")
                        .append(n.keepaliveS())
                        .append(' ')
                        .append(n.holdtimeS())
                        .append('\n');
            }
            out.append(" neighbor ").append(a).append(" timers connect 10\n");
            if (!n.adminUp()) {
                out.append(" neighbor ").append(a).append(" shutdown\n");
            }
            if (n.bfd()) {
                out.append(" neighbor ").append(a).append(" bfd");
                if (n.bfdTimers() != null) {
                    out.append(' ')
                            .append(n.bfdTimers()[0])
                            .append(' ')
                            .append(n.bfdTimers()[1])
                            .append(' ')
                            .append(n.bfdTimers()[2]);
                }
                out.append('\n');
            }
        }
        final Set<IpPrefix> announced = announced(db, bgp, loopbacks);
        for (final boolean v6 : new boolean[] {false, true}) {
            final String group = v6 ? "PEER_V6" : "PEER_V4";
            out.append(" !\n address-family ").append(v6 ? "ipv6" : "ipv4").append(" unicast\n");
            for (final IpPrefix p : announced) {
                if (p.v6() == v6) {
                    out.append("  network ").append(text(p)).append('\n');
                }
            }
            out.append("  neighbor ").append(group).append(" soft-reconfiguration inbound\n");
            out.append("  neighbor ")
                    .append(group)
                    .append(" route-map FROM_BGP_")
                    .append(group)
                    .append(" in\n");
            out.append("  neighbor ")
                    .append(group)
                    .append(" route-map TO_BGP_")
                    .append(group)
                    .append(" out\n");
            for (final BgpConfig.Neighbor n : bgp.neighbors()) {
                if (n.address().v6() == v6) {
                    out.append("  neighbor ").append(address(n.address())).append(" activate\n");
                    if (n.nextHopSelf()) {
                        out.append("  neighbor ").append(address(n.address())).append(" next-hop-self\n");
                    }
                    if (n.routeReflectorClient()) {
                        out.append("  neighbor ").append(address(n.address())).append(" route-reflector-client\n");
                    }
                }
            }
            out.append("  maximum-paths ").append(MAXIMUM_PATHS).append('\n');
            out.append(" exit-address-family\n");
        }
        out.append("!\n");
        for (final String group : List.of("PEER_V4", "PEER_V6")) {
            out.append("route-map FROM_BGP_").append(group).append(" permit 100\n!\n");
            out.append("route-map TO_BGP_").append(group).append(" permit 100\n!\n");
        }
        return out.toString();
    }

    /** The loopbacks, then every interface subnet no BGP neighbor is on, in config order. */
    static Set<IpPrefix> announced(final ConfigDb db, final BgpConfig bgp, final List<IpPrefix> loopbacks) {
        final Set<IpPrefix> announced = new LinkedHashSet<>(loopbacks);
        for (final String table : List.of("INTERFACE", "VLAN_INTERFACE")) {
            for (final String key : db.table(table).keySet()) {
                final String[] parts = key.split("\\|");
                if (parts.length != 2) {
                    continue;
                }
                final IpPrefix subnet = IpPrefix.parse(parts[1]);
                final boolean peering = bgp.neighbors().stream()
                        .anyMatch(n -> n.address().v6() == subnet.v6()
                                && n.address().truncate(subnet.length()).equals(subnet));
                if (!peering) {
                    announced.add(subnet);
                }
            }
        }
        return announced;
    }

    /** A host prefix as an address (no length; IPv6 uncompressed, which FRR reads as any form). */
    static String address(final IpPrefix host) {
        final String text = host.toString();
        return text.substring(0, text.indexOf('/'));
    }

    /** A prefix as FRR writes it. */
    static String text(final IpPrefix prefix) {
        return address(prefix) + "/" + prefix.length();
    }
}
