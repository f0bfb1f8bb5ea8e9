package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.testsupport.netns.Offloads;
import io.asicemu.veth.ffm.NetDevice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code asic-emu host} on Linux ports: two hosts on two veth links joined by a bridge in a namespace the test
 * creates; one sends RDMA WRITEs on 4 QPs, the other answers; every message is acknowledged and the receiver took
 * every byte exactly once (a frame the kernel drops on a loaded machine is recovered go-back-N, and counted). A sender
 * pacing small frames at a low rate sleeps between them instead of spinning, and a receiver started with
 * {@code --idle-exit-s} says when it is ready and stops on its own once its sender is done.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostCommandNetnsTest {

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

    private static final Pattern STOPPED = Pattern.compile(
            "host: stopped: ([^;]+); pacing: (\\d+) parks \\(late by (\\d+) µs on average\\), ([0-9.]+) ms spun");

    /**
     * 4 MiB in 1 KiB frames at 10 Mb/s: 4,096 frames 0.86 ms apart, gaps the former loop spun through (everything
     * below 2 ms), about 3.4 s of waiting. Now the loop parks through them: it spins less than a tenth of the
     * transfer's time, and the sending thread's CPU time is a fraction of the wall-clock time (a spinning sender's
     * is all of it on a quiet machine). The receiver, started first, prints {@code host: ready} once its socket is
     * open and, with {@code --idle-exit-s 1}, ends a second after the last frame instead of at {@code --duration-s}.
     */
    @Test
    void aPacedSenderSleepsBetweenFramesAndAnIdleReceiverStops() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final Netns wire = lab.namespace("wire");
            final String a = lab.switchLink("a", wire, "x1", Offloads.CONTAINERLAB, 9000);
            final String b = lab.switchLink("b", wire, "x2", Offloads.CONTAINERLAB, 9000);
            wire.execOk("ip", "link", "add", "br0", "type", "bridge");
            wire.execOk("ip", "link", "set", "x1", "master", "br0");
            wire.execOk("ip", "link", "set", "x2", "master", "br0");
            wire.execOk("ip", "link", "set", "br0", "up");

            final StringWriter receiverOut = new StringWriter();
            final CompletableFuture<Integer> receiver = new CompletableFuture<>();
            // a thread of its own: the common pool has one worker on a 2-core machine, and the sender must not wait
            Thread.ofPlatform().name("receiver").start(() -> {
                final picocli.CommandLine cli = Main.commandLine();
                cli.setOut(new PrintWriter(receiverOut, true));
                receiver.complete(cli.execute(
                        "host",
                        "--interface",
                        b,
                        "--ip",
                        "10.9.0.2",
                        "--peer",
                        "10.9.0.1",
                        "--gateway-mac",
                        macText(a),
                        "--duration-s",
                        "60",
                        "--idle-exit-s",
                        "1",
                        "--line-rate-mbps",
                        "10"));
            });
            final long readyDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!receiverOut.toString().contains("host: ready")) {
                assertThat(System.nanoTime())
                        .as("receiver ready\n" + receiverOut)
                        .isLessThan(readyDeadline);
                Thread.sleep(20);
            }

            final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            final StringWriter senderOut = new StringWriter();
            final picocli.CommandLine cli = Main.commandLine();
            cli.setOut(new PrintWriter(senderOut, true));
            final long cpu0 = threads.getCurrentThreadCpuTime();
            final long wall0 = System.nanoTime();
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
                    "--send",
                    "1048576",
                    "--messages",
                    "4",
                    "--mtu-payload",
                    "1024",
                    "--line-rate-mbps",
                    "10",
                    "--duration-s",
                    "30");
            final long wallNs = System.nanoTime() - wall0;
            final long cpuNs = threads.getCurrentThreadCpuTime() - cpu0;
            final long senderEnd = System.nanoTime();
            System.out.printf(
                    "paced sender: %.2f s wall, %.3f s CPU on its thread%n%s", wallNs / 1e9, cpuNs / 1e9, senderOut);
            assertThat(exit).as(senderOut.toString()).isZero();
            assertThat(senderOut.toString()).contains("4 of 4 messages acknowledged", "host: ready");
            final Matcher paced = STOPPED.matcher(senderOut.toString());
            assertThat(paced.find()).as(senderOut.toString()).isTrue();
            assertThat(paced.group(1)).isEqualTo("every message acknowledged");
            assertThat(Long.parseLong(paced.group(2)))
                    .as("parks between paced frames\n" + senderOut)
                    .isGreaterThan(1000);
            assertThat(Double.parseDouble(paced.group(4)) * 1e6)
                    .as("time spun\n" + senderOut)
                    .isLessThan(0.1 * wallNs);
            assertThat((double) cpuNs / wallNs)
                    .as("sender CPU / wall\n" + senderOut)
                    .isLessThan(0.5);

            assertThat(receiver.get(30, TimeUnit.SECONDS)).isZero();
            final long receiverAfterSenderNs = System.nanoTime() - senderEnd;
            assertThat(receiverOut.toString()).contains("4194304 B received", "stopped: idle for --idle-exit-s");
            // 1 s idle after the last frame (sent before the sender's last ACK arrived), not the 60 s duration
            assertThat(receiverAfterSenderNs).as(receiverOut.toString()).isLessThan(TimeUnit.SECONDS.toNanos(10));
        }
    }
}
