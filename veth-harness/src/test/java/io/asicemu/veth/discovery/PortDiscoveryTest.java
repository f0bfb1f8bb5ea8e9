package io.asicemu.veth.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.port.Port;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.afpacket.AfPacketConfig;
import io.asicemu.veth.testing.PortPump;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PortDiscoveryTest {
    /** A sink that records what the data path would be given. */
    private static final class RecordingSink implements LinuxPorts.PortSink {
        final BlockingQueue<Port> attached = new LinkedBlockingQueue<>();
        final BlockingQueue<Port> detached = new LinkedBlockingQueue<>();

        @Override
        public void attach(final Port port) {
            attached.add(port);
        }

        @Override
        public void detach(final Port port) {
            detached.add(port);
            port.close();
        }
    }

    @Test
    void shouldPickUpPortAgainWhenDeletedAndRecreated() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final RecordingSink sink = new RecordingSink();
            try (LinuxPorts ports = new LinuxPorts(
                            PortDiscovery.dataPorts("eth0", lab.prefix() + "-sw[0-9]+"),
                            AfPacketConfig.defaults(),
                            sink)
                    .start()) {
                assertThat(sink.attached.poll(300, TimeUnit.MILLISECONDS))
                        .as("no data port yet")
                        .isNull();

                final String name = lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
                final Port first = sink.attached.poll(5, TimeUnit.SECONDS);
                assertThat(first).isNotNull();
                assertThat(first.name()).isEqualTo(name);

                lab.deleteSwitchLink(name);
                assertThat(sink.detached.poll(5, TimeUnit.SECONDS)).isSameAs(first);

                lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 9500);
                final Port second = sink.attached.poll(5, TimeUnit.SECONDS);
                assertThat(second).isNotNull().isNotSameAs(first);
                assertThat(second.name()).isEqualTo(name);
                assertThat(second.mtu()).isEqualTo(9500);

                final List<String> sent = PortPump.hexLines(h1.scapySend(
                        "udp",
                        "--iface",
                        "eth1",
                        "--smac",
                        "02:00:00:00:00:01",
                        "--dmac",
                        "02:00:00:00:00:02",
                        "--sip",
                        "10.2.0.1",
                        "--dip",
                        "10.2.0.2",
                        "--count",
                        "5",
                        "--print"));
                assertThat(PortPump.receive(second, 5, 5_000).stream()
                                .map(PortPump::hex)
                                .toList())
                        .containsExactlyElementsOf(sent);
                final String details = Commands.runOrFail("ip", "-d", "link", "show", "dev", name)
                        .stdout();
                assertThat(details).contains("addrgenmode none");
                assertThat(Commands.runOrFail("ip", "-6", "addr", "show", "dev", name)
                                .stdout())
                        .isBlank();
            }
        }
    }

    @Test
    void shouldIgnoreManagementAndForeignInterfacesWhenDiscovering() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            lab.switchLink("sw1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            lab.switchLink("mg", h1, "eth2", Offloads.CONTAINERLAB, 1500);
            final List<String> added = new java.util.ArrayList<>();
            try (PortDiscovery discovery = new PortDiscovery(
                    PortDiscovery.dataPorts(lab.prefix() + "-mg", lab.prefix() + "-.*"), new PortDiscovery.Listener() {
                        @Override
                        public void onPortAdded(final String name, final int ifIndex) {
                            added.add(name);
                        }

                        @Override
                        public void onPortRemoved(final String name, final int ifIndex) {
                            added.remove(name);
                        }
                    })) {
                discovery.reconcile();
                assertThat(added).containsExactly(lab.prefix() + "-sw1");
            }
        }
    }
}
