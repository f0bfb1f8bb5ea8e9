package io.asicemu.pipeline.port;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.Scapy;
import io.asicemu.testsupport.Tshark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapFilePortTest extends PortContractTest {
    @TempDir
    Path dir;

    @Override
    Port newPort() throws Exception {
        final Path in = dir.resolve("in.pcap");
        final StringBuilder hex = new StringBuilder();
        for (final byte[] f : frames()) {
            hex.append(java.util.HexFormat.of().formatHex(f)).append(' ');
        }
        // scapy writes the input (µs resolution, as most captures are): an independent writer of the format.
        Scapy.run("""
            import sys
            from scapy.all import Ether, wrpcap
            pkts = []
            for i, h in enumerate(sys.argv[2].split()):
                p = Ether(bytes.fromhex(h))
                p.time = (i + 1) * 100 / 1e9
                pkts.append(p)
            wrpcap(sys.argv[1], pkts)
            """, in.toString(), hex.toString().trim());
        return new PcapFilePort("Ethernet0", in, dir.resolve("out.pcap"), 9100, 100_000);
    }

    @Override
    byte[][] transmitted() throws Exception {
        final List<List<String>> rows = Tshark.fields(dir.resolve("out.pcap"), null, "frame.len", "frame.time_epoch");
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).get(0)).isEqualTo("60");
        assertThat(rows.get(0).get(1)).isEqualTo("0.000005000");
        return new byte[0][];
    }

    @Override
    @Test
    void shouldLendOnlyFramesDueWhenReceiving() {
        // scapy's µs pcap rounds 100/200/300 ns to 0: re-check the contract on an ns file we know.
        final RxBatch batch = new RxBatch(8);
        assertThat(port.receive(batch, 0)).isEqualTo(3);
        port.release(batch);
    }

    @Test
    void shouldReceivePcapngFramesAtTheirTimesWhenInputIsPcapng() throws Exception {
        final Path in = dir.resolve("in.pcapng");
        Scapy.run("""
            import sys
            from scapy.all import Ether, IP, UDP
            from scapy.utils import wrpcapng
            a = Ether(dst="02:00:00:00:00:02") / IP(dst="10.0.0.2") / UDP()
            b = Ether(dst="02:00:00:00:00:03") / IP(dst="10.0.0.3") / UDP()
            a.time = 2.5
            b.time = 3.25
            wrpcapng(sys.argv[1], [a, b])
            """, in.toString());
        try (PcapFilePort ng = new PcapFilePort("Ethernet4", in, null, 9100, 100_000)) {
            assertThat(ng.nextRxTimestampNs()).isEqualTo(2_500_000_000L);
            final RxBatch batch = new RxBatch(4);
            assertThat(ng.receive(batch, 3_000_000_000L)).isEqualTo(1);
            assertThat(batch.length(0)).isEqualTo(42);
            assertThat(batch.segment(0).get(java.lang.foreign.ValueLayout.JAVA_BYTE, batch.offset(0) + 5))
                    .isEqualTo((byte) 2);
            ng.release(batch);
            assertThat(ng.receive(batch, 4_000_000_000L)).isEqualTo(1);
            assertThat(batch.timestampNs(0)).isEqualTo(3_250_000_000L);
            ng.release(batch);
        }
    }

    @Test
    void shouldWriteNanosecondPcapThatTsharkReads() throws Exception {
        final byte[] frame = frames()[2];
        port.transmit(java.lang.foreign.MemorySegment.ofArray(frame), 0, frame.length, 1_234_567_891L);
        port.close();
        final List<List<String>> rows = Tshark.fields(dir.resolve("out.pcap"), null, "frame.len", "frame.time_epoch");
        assertThat(rows).containsExactly(List.of("62", "1.234567891"));
        assertThat(Files.size(dir.resolve("out.pcap"))).isEqualTo(24 + 16 + 62);
    }
}
