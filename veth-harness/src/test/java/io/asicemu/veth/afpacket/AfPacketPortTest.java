package io.asicemu.veth.afpacket;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.Tshark;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.testing.PcapFiles;
import io.asicemu.veth.testing.PortPump;
import io.asicemu.veth.testing.Repeater;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AfPacketPortTest {
    private static final String SMAC = "02:00:00:00:00:01";
    private static final String DMAC = "02:00:00:00:00:02";

    @Test
    void shouldReceiveScapyFramesIntactWhenSentFromNamespace() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String portName = lab.switchLink("p1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            try (AfPacketPort port = AfPacketPort.open(portName, AfPacketConfig.defaults())) {
                assertThat(port.ringBytes())
                        .as("MTU 1500: RX 8,200 slots of 1,600 B, 10 to a 16 KiB block (820 blocks), + TX 64 x 2 KiB")
                        .isEqualTo(820L * 16_384 + 64 * 2_048);
                final List<String> expected = new ArrayList<>();
                expected.addAll(PortPump.hexLines(h1.scapySend(
                        "udp",
                        "--iface",
                        "eth1",
                        "--smac",
                        SMAC,
                        "--dmac",
                        DMAC,
                        "--sip",
                        "10.0.0.1",
                        "--dip",
                        "10.0.0.2",
                        "--dscp",
                        "26",
                        "--ecn",
                        "2",
                        "--count",
                        "20",
                        "--size",
                        "100",
                        "--print")));
                expected.addAll(PortPump.hexLines(h1.scapySend(
                        "roce",
                        "--iface",
                        "eth1",
                        "--smac",
                        SMAC,
                        "--dmac",
                        DMAC,
                        "--sip",
                        "10.0.0.1",
                        "--dip",
                        "10.0.0.2",
                        "--qps",
                        "0x11,0x12,0x13",
                        "--print")));
                // a VLAN-tagged frame (PCP 3, VID 100): veth untags on receive, the port must restore the tag
                final String vlanFrame =
                        DMAC.replace(":", "") + SMAC.replace(":", "") + "81006064" + "88b5" + "00".repeat(46);
                // the largest frames a 1500 MTU lets through, untagged and tagged, fit a ring slot: no copy path
                final String fullFrame = DMAC.replace(":", "") + SMAC.replace(":", "") + "88b5" + "5a".repeat(1500);
                final String fullTaggedFrame =
                        DMAC.replace(":", "") + SMAC.replace(":", "") + "81006064" + "88b5" + "a5".repeat(1500);
                expected.addAll(PortPump.hexLines(h1.scapySend(
                        "hex",
                        "--iface",
                        "eth1",
                        "--frames",
                        vlanFrame + "," + fullFrame + "," + fullTaggedFrame,
                        "--print")));
                // a 9000-byte frame does not fit a 1500 MTU: it never reaches us, so the expected list ends here

                final List<byte[]> received = PortPump.receive(port, expected.size(), 5_000);

                assertThat(received.stream().map(PortPump::hex).toList()).containsExactlyElementsOf(expected);
                assertThat(port.rxVlanRestoredCount()).isEqualTo(2);
                assertThat(port.rxFrameCount()).isEqualTo(expected.size());
                assertThat(port.rxCopiedFrameCount())
                        .as("frames read through recv(2)")
                        .isZero();
            }
        }
    }

    /** The data plane orders a waiting frame before a command by the kernel's receive timestamp in the ring. */
    @Test
    void shouldTellWhetherTheWaitingFrameArrivedBeforeAMomentByTheKernelsTimestamp() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String portName = lab.switchLink("p1", h1, "eth1", Offloads.CONTAINERLAB, 1500);
            try (AfPacketPort port = AfPacketPort.open(portName, AfPacketConfig.defaults())) {
                final long beforeEpochNs = epochNs();
                assertThat(port.rxWaitingSince(0, Long.MAX_VALUE))
                        .as("nothing waiting")
                        .isFalse();
                h1.scapySend(
                        "udp",
                        "--iface",
                        "eth1",
                        "--smac",
                        SMAC,
                        "--dmac",
                        DMAC,
                        "--sip",
                        "10.0.0.1",
                        "--dip",
                        "10.0.0.2");
                final long afterEpochNs = epochNs();
                assertThat(port.rxWaitingSince(0, afterEpochNs))
                        .as("arrived before now")
                        .isTrue();
                assertThat(port.rxWaitingSince(0, beforeEpochNs))
                        .as("not before the moment before it was sent")
                        .isFalse();
            }
        }
    }

    private static long epochNs() {
        final java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Test
    void shouldReceiveJumboFramesLargerThanARingSlotWholeThroughTheCopyPath() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String portName = lab.switchLink("p1", h1, "eth1", Offloads.CONTAINERLAB, 9500);
            try (AfPacketPort port = AfPacketPort.open(portName, AfPacketConfig.defaults())) {
                final List<String> expected = new ArrayList<>();
                // ring slots stay 2 KiB at MTU 9500: 9,000-byte frames are queued whole and read with recv(2)
                expected.addAll(PortPump.hexLines(h1.scapySend(
                        "udp",
                        "--iface",
                        "eth1",
                        "--smac",
                        SMAC,
                        "--dmac",
                        DMAC,
                        "--sip",
                        "10.0.0.1",
                        "--dip",
                        "10.0.0.2",
                        "--count",
                        "3",
                        "--size",
                        "9000",
                        "--print")));
                expected.addAll(PortPump.hexLines(h1.scapySend(
                        "udp",
                        "--iface",
                        "eth1",
                        "--smac",
                        SMAC,
                        "--dmac",
                        DMAC,
                        "--sip",
                        "10.0.0.1",
                        "--dip",
                        "10.0.0.2",
                        "--count",
                        "2",
                        "--size",
                        "100",
                        "--print")));

                final List<byte[]> received = PortPump.receive(port, expected.size(), 5_000);

                assertThat(received.stream().map(PortPump::hex).toList()).containsExactlyElementsOf(expected);
                assertThat(port.rxCopiedFrameCount()).isEqualTo(3);
                assertThat(port.rxOversizeDropCount()).isZero();
                assertThat(port.ringBytes())
                        .as("RX 8192 x 2 KiB (8 to a 16 KiB block) + TX bounded to 64 x 2 KiB: 8 x 16 KiB")
                        .isEqualTo(8192L * 2_048 + 8 * 16_384);
            }
        }
    }

    @Test
    void shouldTransmitFramesThatTcpdumpCapturesInNamespace() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String portName = lab.switchLink("p1", h1, "eth1", Offloads.CONTAINERLAB, 9500);
            final List<String> frames = new ArrayList<>();
            frames.addAll(PortPump.hexLines(h1.scapySend(
                    "roce",
                    "--iface",
                    "eth1",
                    "--smac",
                    SMAC,
                    "--dmac",
                    DMAC,
                    "--sip",
                    "10.0.0.1",
                    "--dip",
                    "10.0.0.2",
                    "--qps",
                    "0x21,0x22",
                    "--count",
                    "3",
                    "--dry-run")));
            frames.addAll(PortPump.hexLines(h1.scapySend(
                    "pfc", "--iface", "eth1", "--smac", SMAC, "--enable", "0x08", "--quanta", "65535", "--dry-run")));
            frames.addAll(PortPump.hexLines(h1.scapySend(
                    "udp",
                    "--iface",
                    "eth1",
                    "--smac",
                    SMAC,
                    "--dmac",
                    DMAC,
                    "--sip",
                    "10.0.0.1",
                    "--dip",
                    "10.0.0.2",
                    "--size",
                    "9000",
                    "--dry-run")));
            try (AfPacketPort port = AfPacketPort.open(portName, AfPacketConfig.defaults());
                    Arena arena = Arena.ofConfined()) {
                final var capture = h1.capture("eth1", null, frames.size(), Duration.ofSeconds(20));
                for (final String hex : frames) {
                    final byte[] bytes = HexFormat.of().parseHex(hex);
                    final MemorySegment source = arena.allocate(bytes.length);
                    MemorySegment.copy(bytes, 0, source, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
                    assertThat(port.transmit(source, 0, bytes.length, 0)).isTrue();
                }
                port.flush();
                final Path pcap = capture.stop();

                final String captured = h1.python("""
                    import sys
                    from scapy.all import rdpcap
                    for p in rdpcap(sys.argv[1]):
                        print(bytes(p).hex())
                    """, Duration.ofSeconds(30), pcap.toString());
                assertThat(PortPump.hexLines(captured)).containsExactlyElementsOf(frames);
                final List<List<String>> pfc =
                        Tshark.fields(pcap, "macc.opcode == 0x0101", "macc.cbfc.enbv.c3", "macc.cbfc.pause_time.c3");
                assertThat(pfc).containsExactly(List.of("1", "65535"));
                assertThat(port.txFrameCount()).isEqualTo(frames.size());
                // the small frames went copied whole (virtio_net_hdr.hdr_len), the 9000 B one as page fragments
                assertThat(port.txCopiesFramesWhole()).isTrue();
            }
        }
    }

    @Test
    void shouldCompleteChecksumsWhenPeerHasTxChecksumOffload() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String portName = lab.switchLink("p1", h1, "eth1", Offloads.KERNEL_DEFAULT, 1500);
            h1.addAddress("eth1", "10.77.0.1/24");
            h1.neighbour("eth1", "10.77.0.2", DMAC);
            try (AfPacketPort port = AfPacketPort.open(portName, AfPacketConfig.defaults())) {
                // kernel-built UDP and TCP SYNs: with TX checksum offload on, the kernel leaves the checksum partial
                h1.python("""
                    import socket
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    for i in range(5):
                        s.sendto(bytes(range(100 + i)), ("10.77.0.2", 9999))
                    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    t.settimeout(1.2)
                    try:
                        t.connect(("10.77.0.2", 80))
                    except OSError:
                        pass
                    """, Duration.ofSeconds(20));
                final List<byte[]> received = PortPump.receive(port, 6, 5_000);
                final Path pcap = PcapFiles.write(lab.newFile("pcap"), received);

                final List<List<String>> udp = Tshark.fields(pcap, "udp.dstport == 9999", "udp.checksum.status");
                final List<List<String>> tcp = Tshark.fields(pcap, "tcp.dstport == 80", "tcp.checksum.status");
                assertThat(udp).hasSize(5).allSatisfy(row -> assertThat(row).containsExactly("1"));
                assertThat(tcp).isNotEmpty().allSatisfy(row -> assertThat(row).containsExactly("1"));
                assertThat(port.rxChecksumCompletedCount()).isGreaterThanOrEqualTo(udp.size() + tcp.size());
            }
        }
    }

    @Test
    void shouldCarryTcpBetweenHostsWhenSenderHasDefaultOffloads() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            final Netns h2 = lab.namespace("h2");
            h1.disableIpv6();
            h2.disableIpv6();
            final String p1 = lab.switchLink("p1", h1, "eth1", Offloads.KERNEL_DEFAULT, 1500);
            final String p2 = lab.switchLink("p2", h2, "eth1", Offloads.KERNEL_DEFAULT, 1500);
            h1.addAddress("eth1", "10.78.0.1/24");
            h2.addAddress("eth1", "10.78.0.2/24");
            final AfPacketPort port1 = AfPacketPort.open(p1, AfPacketConfig.defaults());
            final AfPacketPort port2 = AfPacketPort.open(p2, AfPacketConfig.defaults());
            try (port1;
                    port2) {
                final var capture = h2.capture("eth1", "tcp and src host 10.78.0.1", 100_000, Duration.ofSeconds(60));
                final String sunk;
                final String sent;
                try (Repeater wire = new Repeater(port1, port2)) {
                    assertThat(h1.ping("10.78.0.2", 3)).isEqualTo(3);
                    final var sink = h2.tcpSink(5001, Duration.ofSeconds(40));
                    Thread.sleep(300);
                    sent = h1.tcpSend("10.78.0.2", 5001, 4_000_000, Duration.ofSeconds(40));
                    sunk = sink.await(20_000).trim();
                }
                final Path pcap = capture.stop();

                assertThat(sunk).isEqualTo(sent);
                assertThat(port1.rxGsoFrameCount())
                        .as("h1 sent GSO super-frames")
                        .isPositive();
                assertThat(port1.rxChecksumCompletedCount()).isPositive();
                final List<List<String>> frames = Tshark.fields(pcap, null, "frame.len", "tcp.checksum.status");
                assertThat(frames).hasSizeGreaterThan(100).allSatisfy(row -> {
                    assertThat(Integer.parseInt(row.get(0))).isLessThanOrEqualTo(1514);
                    assertThat(row.get(1)).isEqualTo("1");
                });
            }
        }
    }

    @Test
    void shouldDropAndCountUdpSuperFrameWhenPeerSegmentsNothing() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String portName = lab.switchLink("p1", h1, "eth1", Offloads.KERNEL_DEFAULT, 1500);
            h1.addAddress("eth1", "10.79.0.1/24");
            h1.neighbour("eth1", "10.79.0.2", DMAC);
            try (AfPacketPort port = AfPacketPort.open(portName, AfPacketConfig.defaults())) {
                // UDP_SEGMENT (USO): the kernel hands the veth one 8 kB super-frame, leaving segmentation to "hardware"
                h1.python("""
                    import socket
                    gso = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    gso.setsockopt(17, 103, 1000)
                    gso.sendto(bytes(8000), ("10.79.0.2", 9999))
                    plain = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    plain.sendto(bytes(100), ("10.79.0.2", 9998))
                    """, Duration.ofSeconds(20));
                final List<byte[]> received = PortPump.receive(port, 2, 2_000);

                assertThat(received).as("only the plain datagram is lent").hasSize(1);
                assertThat(received.getFirst()).hasSize(14 + 20 + 8 + 100);
                assertThat(port.rxOversizeDropCount())
                        .as("the UDP super-frame, counted")
                        .isEqualTo(1);
            }
        }
    }
}
