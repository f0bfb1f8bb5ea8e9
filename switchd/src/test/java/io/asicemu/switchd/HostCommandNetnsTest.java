package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.veth.ffm.NetDevice;
import io.asicemu.veth.harness.Netns;
import io.asicemu.veth.harness.NetnsLab;
import io.asicemu.veth.harness.Offloads;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code asic-emu host} on Linux ports: two hosts on two veth links joined by a bridge in a namespace the test
 * creates; one sends RDMA WRITEs on 4 QPs, the other answers; every message is acknowledged and the receiver took
 * every byte exactly once (a frame the kernel drops on a loaded machine is recovered go-back-N, and counted).
 */
@Tag("netns")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostCommandNetnsTest {
    @BeforeAll
    static void requireRoot() {
        assertThat(System.getProperty("user.name"))
                .as("netns tests need root; exclude the tag otherwise")
                .isEqualTo("root");
        NetnsLab.sweepStale();
    }

    @AfterEach
    void closeLabs() {
        NetnsLab.closeAll();
    }

    private static String macText(final String ifName) {
        final byte[] mac = NetDevice.macAddress(ifName);
        final StringBuilder sb = new StringBuilder();
        for (final byte b : mac) {
            sb.append(sb.isEmpty() ? "" : ":").append(String.format("%02x", b & 0xFF));
        }
        return sb.toString();
    }

    @Test
    void aTransferBetweenTwoLiveHostsCompletes() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns wire = lab.namespace("wire");
            final String a = lab.switchLink("a", wire, "x1", Offloads.CONTAINERLAB, 9000);
            final String b = lab.switchLink("b", wire, "x2", Offloads.CONTAINERLAB, 9000);
            wire.execOk("ip", "link", "add", "br0", "type", "bridge");
            wire.execOk("ip", "link", "set", "x1", "master", "br0");
            wire.execOk("ip", "link", "set", "x2", "master", "br0");
            wire.execOk("ip", "link", "set", "br0", "up");

            final StringWriter receiverOut = new StringWriter();
            final CompletableFuture<Integer> receiver = CompletableFuture.supplyAsync(() -> {
                final picocli.CommandLine cli = Main.commandLine();
                cli.setOut(new PrintWriter(receiverOut, true));
                return cli.execute(
                        "host",
                        "--interface",
                        b,
                        "--ip",
                        "10.9.0.2",
                        "--peer",
                        "10.9.0.1",
                        "--gateway-mac",
                        macText(a),
                        "--qps",
                        "4",
                        "--duration-s",
                        "20",
                        "--report-ms",
                        "500",
                        "--line-rate-mbps",
                        "200");
            });
            Thread.sleep(300);
            final StringWriter senderOut = new StringWriter();
            final picocli.CommandLine cli = Main.commandLine();
            cli.setOut(new PrintWriter(senderOut, true));
            final int exit = cli.execute(
                    "host",
                    "--interface",
                    a,
                    "--ip",
                    "10.9.0.1",
                    "--peer",
                    "10.9.0.2",
                    "--gateway-mac",
                    macText(b),
                    "--qps",
                    "4",
                    "--send",
                    "262144",
                    "--messages",
                    "4",
                    "--duration-s",
                    "15",
                    "--report-ms",
                    "500",
                    "--line-rate-mbps",
                    "200");
            assertThat(exit).as(senderOut.toString()).isZero();
            assertThat(senderOut.toString()).contains("16 of 16 messages acknowledged", "FCT P50");
            receiver.get(30, TimeUnit.SECONDS);
            // In-order bytes only: a retransmitted packet the receiver already had is not counted twice.
            assertThat(receiverOut.toString()).contains("4194304 B received");
        }
    }
}
