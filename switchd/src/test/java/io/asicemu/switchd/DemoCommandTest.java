package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.Tshark;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(300)
class DemoCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldReplayTheBundledCapturesAndReportWhatTsharkSeesInTheOutputs() throws Exception {
        final StringWriter text = new StringWriter();
        final CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(text));
        final int exit = cli.execute("demo", "--out-dir", dir.toString());
        assertThat(exit).as(text.toString()).isZero();

        final Path output = dir.resolve("output");
        for (final String port :
                List.of("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12", "Ethernet16", "Ethernet20")) {
            final Path pcap = output.resolve(port + ".pcap");
            assertThat(pcap).exists();
            final CaptureSummary ours = CaptureSummary.of(pcap);
            assertThat(Tshark.fields(pcap, null, "frame.number")).as(port).hasSize((int) ours.frames());
            assertThat(Tshark.fields(pcap, "ip.dsfield.ecn == 3", "frame.number"))
                    .as(port)
                    .hasSize((int) ours.ceMarked());
            assertThat(Tshark.fields(pcap, "udp.dstport == 4791", "frame.number"))
                    .as(port)
                    .hasSize((int) ours.roceFrames());
        }
        // Every frame of the 2:1 incast into h1's port leaves the switch (queue 3 is lossless), and it is
        // routed: TTL 63, the router's source MAC, h1's MAC.
        final List<List<String>> incast = Tshark.fields(
                output.resolve("Ethernet4.pcap"),
                "udp.dstport == 4791",
                "ip.ttl",
                "eth.src",
                "eth.dst",
                "ip.checksum.status");
        assertThat(incast)
                .hasSize(8000)
                .allSatisfy(
                        row -> assertThat(row).containsExactly("63", "02:ae:00:00:00:01", "02:00:00:00:00:02", "1"));
        // h0's 64 queue pairs share one 5-tuple: the static hash puts them all on one uplink, enhanced ECMP (the BTH
        // destination QP in the hash) spreads them over all four. tshark counts the QPs per uplink.
        assertThat(qpsPerUplink(dir.resolve("output-static-hash"))).containsExactlyInAnyOrder(64, 0, 0, 0);
        final List<Integer> spread = qpsPerUplink(output);
        assertThat(spread).allSatisfy(qps -> assertThat(qps).isPositive());
        assertThat(spread.stream().mapToInt(Integer::intValue).sum()).isEqualTo(64);
        assertThat(text.toString())
                .contains("SAI_IN_DROP_REASON_TTL 1")
                .contains("Ethernet0 SAI_IN_DROP_REASON_IP_HEADER_ERROR 1") // the truncated frame
                .contains("Ethernet4:3 SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS "
                        + Tshark.fields(output.resolve("Ethernet4.pcap"), "ip.dsfield.ecn == 3", "frame.number")
                                .size());
        for (final String uplink : DemoCommand.UPLINKS) {
            final CaptureSummary sent = CaptureSummary.of(output.resolve(uplink + ".pcap"));
            assertThat(sent.frames())
                    .as("%s sends only h0's RoCEv2 frames", uplink)
                    .isEqualTo(sent.roceFrames());
        }
        assertThat(Files.readString(output.resolve("counters.txt"))).contains("Ethernet4");
    }

    private static List<Integer> qpsPerUplink(final Path output) {
        return DemoCommand.UPLINKS.stream()
                .map(uplink -> (int) Tshark.fields(
                                output.resolve(uplink + ".pcap"),
                                "udp.dstport == 4791 && ip.src == 10.0.0.1",
                                "infiniband.bth.destqp")
                        .stream()
                        .distinct()
                        .count())
                .toList();
    }

    @Test
    void shouldRefuseABadConfigNamingTableKeyAndField() throws Exception {
        final Path config = dir.resolve("config_db.json");
        Files.writeString(config, """
            {"PORT": {"Ethernet0": {"speed": "fast", "mtu": "9100", "admin_status": "up"}}}
            """);
        final Path pcap = dir.resolve("empty.pcap");
        Files.write(pcap, new byte[] {
            (byte) 0xd4,
            (byte) 0xc3,
            (byte) 0xb2,
            (byte) 0xa1,
            2,
            0,
            4,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            (byte) 0xff,
            (byte) 0xff,
            0,
            0,
            1,
            0,
            0,
            0
        });
        final StringWriter err = new StringWriter();
        final CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        final int exit = cli.execute(
                "replay",
                "--config",
                config.toString(),
                "--in",
                "Ethernet0=" + pcap,
                "--out-dir",
                dir.resolve("out").toString());
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("PORT").contains("Ethernet0").contains("speed");
    }
}
