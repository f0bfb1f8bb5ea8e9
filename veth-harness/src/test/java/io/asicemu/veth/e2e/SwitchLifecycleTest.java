package io.asicemu.veth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.LinuxSwitch;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Ports that appear late, vanish and come back while the switch runs (containerlab's live links and restarts). */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SwitchLifecycleTest {
    @Test
    void shouldForwardAgainWhenPortIsDeletedAndRecreatedWhileSwitchRuns() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            h1.disableIpv6();
            h2.disableIpv6();
            final String sw1 = lab.prefix() + "-sw1";
            final String sw2 = lab.prefix() + "-sw2";
            try (LinuxSwitch sw = LinuxSwitch.start(
                    TwoHostsTest.routedConfig(2),
                    Map.of("Ethernet0", sw1, "Ethernet4", sw2),
                    AfPacketConfig.defaults(),
                    1.0)) {
                // the switch starts with no ports at all; links arrive afterwards
                lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
                lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
                configureHost(h1, "10.0.1.1/24", "10.0.1.254");
                configureHost(h2, "10.0.2.1/24", "10.0.2.254");
                sw.awaitPorts(2, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                assertThat(h1.ping("10.0.2.1", 3)).isGreaterThanOrEqualTo(2);
                final int firstIfIndex = sw.ports().get(sw2).ifIndex();
                final String h2Mac = h2.mac("eth1");

                lab.deleteSwitchLink(sw2);
                awaitDetached(sw, sw2);
                assertThat(h1.ping("10.0.2.1", 2))
                        .as("no path while the link is gone")
                        .isZero();

                lab.switchLink("sw2", h2, "eth1", Offloads.CONTAINERLAB, 1500);
                // same host MAC as before: the pipeline keeps neighbours it resolved on a port after the port went
                // away (no flush on detach), so a new MAC would be unreachable until that entry is refreshed
                h2.execOk("ip", "link", "set", "eth1", "address", h2Mac);
                configureHost(h2, "10.0.2.1/24", "10.0.2.254");
                sw.awaitPorts(2, Duration.ofSeconds(5));
                sw.awaitIdleControl();
                assertThat(sw.ports().get(sw2).ifIndex()).isNotEqualTo(firstIfIndex);
                assertThat(h1.ping("10.0.2.1", 3)).as("forwarding resumed").isGreaterThanOrEqualTo(2);
                assertThat(sw.loop().failure()).isNull();
            }
        }
    }

    private static void configureHost(final Netns host, final String cidr, final String gateway) {
        host.addAddress("eth1", cidr);
        host.route("10.0.0.0/16", gateway);
    }

    private static void awaitDetached(final LinuxSwitch sw, final String port) throws InterruptedException {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (sw.ports().containsKey(port) && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        assertThat(sw.ports()).doesNotContainKey(port);
    }
}
