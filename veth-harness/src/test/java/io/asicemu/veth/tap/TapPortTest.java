package io.asicemu.veth.tap;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.veth.testing.PortPump;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TapPortTest {
    @Test
    void shouldReceiveAndTransmitFramesWhenTapLivesInNamespace() {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns h1 = lab.namespace("h1");
            h1.disableIpv6();
            final String tap = lab.prefix() + "-t1";
            try (TapPort port = TapPort.create(tap, 64, 10_000)) {
                lab.moveLink(tap, h1);
                final List<String> sent = PortPump.hexLines(h1.scapySend(
                        "udp",
                        "--iface",
                        tap,
                        "--smac",
                        "02:00:00:00:00:01",
                        "--dmac",
                        "02:00:00:00:00:02",
                        "--sip",
                        "10.1.0.1",
                        "--dip",
                        "10.1.0.2",
                        "--count",
                        "10",
                        "--size",
                        "200",
                        "--print"));
                sent.addAll(PortPump.hexLines(h1.scapySend(
                        "roce",
                        "--iface",
                        tap,
                        "--smac",
                        "02:00:00:00:00:01",
                        "--dmac",
                        "02:00:00:00:00:02",
                        "--sip",
                        "10.1.0.1",
                        "--dip",
                        "10.1.0.2",
                        "--qps",
                        "0x31,0x32",
                        "--print")));

                final List<byte[]> received = PortPump.receive(port, sent.size(), 5_000);
                assertThat(received.stream().map(PortPump::hex).toList()).containsExactlyElementsOf(sent);

                final List<String> toSend = PortPump.hexLines(h1.scapySend(
                        "pfc",
                        "--iface",
                        tap,
                        "--smac",
                        "02:00:00:00:00:09",
                        "--enable",
                        "0x10",
                        "--quanta",
                        "300",
                        "--count",
                        "3",
                        "--dry-run"));
                final var capture = h1.capture(tap, null, toSend.size(), Duration.ofSeconds(15));
                try (Arena arena = Arena.ofConfined()) {
                    for (final String hex : toSend) {
                        final byte[] bytes = HexFormat.of().parseHex(hex);
                        final MemorySegment source = arena.allocate(bytes.length);
                        MemorySegment.copy(bytes, 0, source, ValueLayout.JAVA_BYTE, 0, bytes.length);
                        assertThat(port.transmit(source, 0, bytes.length, 0)).isTrue();
                    }
                }
                port.flush();
                final Path pcap = capture.stop();
                final List<List<String>> pfc = io.asicemu.testsupport.Tshark.fields(
                        pcap, "macc.opcode == 0x0101", "macc.cbfc.enbv.c4", "macc.cbfc.pause_time.c4");
                assertThat(pfc).containsExactly(List.of("1", "300"), List.of("1", "300"), List.of("1", "300"));
                assertThat(port.txFrameCount()).isEqualTo(3);
            }
        }
    }
}
