package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;

/**
 * {@code asic-emu run} as its own process: it serves P4Runtime, idles cheaply (the data plane blocks in epoll, gRPC in
 * its selector), and SIGTERM shuts it down cleanly (the shutdown hook closes P4Runtime, ports and the data plane, and
 * logs it). Bad options exit 2 without starting anything. Ports are mapped to interfaces that do not exist, so no
 * host interface is touched.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RunCommandProcessTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}}}
        """;

    @TempDir
    Path dir;

    @Test
    void shouldServeP4RuntimeIdleCheaplyAndStopCleanlyWhenSentSigterm() throws Exception {
        final Path config = dir.resolve("config_db.json");
        Files.writeString(config, CONFIG);
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final Process process = new ProcessBuilder(
                        java,
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "run",
                        "--config",
                        config.toString(),
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--p4runtime-port",
                        Integer.toString(port),
                        "--p4runtime-address",
                        "127.0.0.1",
                        "--device-id",
                        "3")
                .redirectErrorStream(true)
                .start();
        final StringBuilder log = new StringBuilder();
        final CompletableFuture<Void> started = new CompletableFuture<>();
        final Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                    if (line.contains("asic-emu live: 1 ports")) {
                        started.complete(null);
                    }
                }
            } catch (final java.io.IOException e) {
                started.completeExceptionally(e);
            }
        });
        try {
            started.get(60, TimeUnit.SECONDS);
            final ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                    .usePlaintext()
                    .build();
            try {
                assertThat(P4RuntimeGrpc.newBlockingStub(channel)
                                .withDeadlineAfter(10, TimeUnit.SECONDS)
                                .capabilities(CapabilitiesRequest.newBuilder()
                                        .setDeviceId(3)
                                        .build())
                                .getP4RuntimeApiVersion())
                        .isEqualTo("1.5.0");
            } finally {
                channel.shutdownNow();
                channel.awaitTermination(5, TimeUnit.SECONDS);
            }
            Thread.sleep(8_000); // let the JIT finish compiling the start-up code
            final long cpuBeforeNs = cpuNs(process.pid());
            Thread.sleep(5_000);
            final double idleCores = (cpuNs(process.pid()) - cpuBeforeNs) / 5e9;
            System.out.printf("run: idle CPU %.3f cores over 5 s%n", idleCores);
            // a 1 ms polling loop alone costs ~0.04 cores here; blocking threads cost ~0
            assertThat(idleCores).as("idle CPU of the running switch (cores)").isLessThan(0.02);

            final long sigtermNs = System.nanoTime();
            process.toHandle().destroy(); // SIGTERM (Process.destroy() would also close our end of its output pipe)
            assertThat(process.waitFor(30, TimeUnit.SECONDS))
                    .as("exits after SIGTERM")
                    .isTrue();
            System.out.printf("run: exited %.1f s after SIGTERM%n", (System.nanoTime() - sigtermNs) / 1e9);
            reader.join(5_000);
            assertThat(process.exitValue()).as("SIGTERM exit status").isEqualTo(143);
            synchronized (log) {
                assertThat(log.toString())
                        .as("the process's log")
                        .contains("asic-emu live: stopped")
                        .doesNotContain("shutdown failed");
            }
        } finally {
            process.destroyForcibly();
        }
    }

    /** utime + stime of a process from /proc (clock ticks of 10 ms). */
    private static long cpuNs(final long pid) throws Exception {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    }

    @Test
    void shouldExitWithStatus2WhenTheOptionsAreRefused() throws Exception {
        final Path config = dir.resolve("config_db.json");
        Files.writeString(config, CONFIG);
        for (final List<String> args : List.of(
                List.of("run", "--config", dir.resolve("missing.json").toString()),
                List.of("run", "--config", config.toString(), "--port-map", "Ethernet99=x", "--p4runtime-port", "0"),
                List.of("run", "--config", config.toString(), "--device-id", "0", "--p4runtime-port", "0"))) {
            final java.io.StringWriter err = new java.io.StringWriter();
            final var cli = Main.commandLine();
            cli.setErr(new java.io.PrintWriter(err));
            assertThat(cli.execute(args.toArray(String[]::new)))
                    .as(String.join(" ", args))
                    .isEqualTo(2);
            assertThat(err.toString()).as("names the problem").startsWith("run: ");
        }
    }
}
