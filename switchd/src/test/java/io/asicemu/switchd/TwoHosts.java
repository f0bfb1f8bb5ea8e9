package io.asicemu.switchd;

import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.Offloads;

/**
 * The switch netns tests' topology: hosts h1 (10.0.1.1/24) and h2 (10.0.2.1/24), IPv6 off, each with an eth1 on its
 * own switch link (containerlab's offloads, MTU 1500); {@code sw1} and {@code sw2} are the switch's ends.
 */
record TwoHosts(Netns h1, Netns h2, String sw1, String sw2) {
    static TwoHosts wire(final NetnsLab lab) {
        final Netns h1 = lab.namespace("h1");
        final Netns h2 = lab.namespace("h2");
        h1.disableIpv6();
        h2.disableIpv6();
        final String sw1 = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
        final String sw2 = lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
        h1.addAddress("eth1", "10.0.1.1/24");
        h2.addAddress("eth1", "10.0.2.1/24");
        return new TwoHosts(h1, h2, sw1, sw2);
    }

    /**
     * Routes a host's 10.0.0.0/16 via its router interface (10.0.x.254), whose MAC it knows without ARP.
     *
     * @param h1RouterMac the MAC of h1's router interface.
     * @param h2RouterMac the MAC of h2's, or null to leave h2 without a route (it only receives).
     * @return this.
     */
    TwoHosts routedVia(final String h1RouterMac, final String h2RouterMac) {
        h1.neighbour("eth1", "10.0.1.254", h1RouterMac);
        h1.route("10.0.0.0/16", "10.0.1.254");
        if (h2RouterMac != null) {
            h2.neighbour("eth1", "10.0.2.254", h2RouterMac);
            h2.route("10.0.0.0/16", "10.0.2.254");
        }
        return this;
    }
}
