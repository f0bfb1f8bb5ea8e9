package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.pcap.PcapWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line as a careless or hostile user meets it (issue 14): every user error exits 2 with one line on
 * stderr that names the file and the problem; a stack trace only with {@code --debug}; outputs stay in the out-dir
 * whatever the configuration calls its ports; {@code demo} leaves nothing in the temp folder.
 */
@Timeout(300)
class HostileInputCliTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02", "family": "IPv4"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2", "ifname": "Ethernet4"}}}
        """;

    @TempDir
    Path dir;

    /** One run of the command line: its exit status and stderr. */
    record Run(int exit, String err, String out) {
        List<String> errLines() {
            return err.isBlank() ? List.of() : Arrays.asList(err.strip().split("\\R"));
        }
    }

    static Run execute(final String... args) {
        final StringWriter err = new StringWriter();
        final StringWriter out = new StringWriter();
        final CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(out, true));
        final int exit = cli.execute(args);
        return new Run(exit, err.toString(), out.toString());
    }

    private Path config() throws IOException {
        return Files.writeString(dir.resolve("config_db.json"), CONFIG);
    }

    private Path capture(final String name) throws IOException {
        final Path pcap = dir.resolve(name);
        try (PcapWriter out = new PcapWriter(pcap);
                Arena arena = Arena.ofConfined()) {
            final MemorySegment frame = arena.allocate(2048);
            for (int i = 0; i < 4; i++) {
                final int length = new FrameBuilder()
                        .macs(0x02aa_bbcc_ddeeL, 0x0200_0000_0102L)
                        .untagged()
                        .ipv4(0x0a00_0102, 0xc0a8_0101)
                        .ttl(64)
                        .udpPorts(1234, 9)
                        .buildUdp(frame, 0, 100);
                out.write(frame, 0, length, 1_000_000_000L + i * 10_000L);
            }
        }
        return pcap;
    }

    private static void assertOneLineUserError(final Run run, final String command, final String... mentions) {
        assertThat(run.exit()).as("exit status; stderr: %s", run.err()).isEqualTo(2);
        assertThat(run.errLines()).as("stderr").hasSize(1);
        assertThat(run.errLines().get(0))
                .startsWith(command + ": ")
                .contains(mentions)
                .doesNotContain("Exception");
    }

    @Test
    void shouldRefuseAnUnboundedConfigQuicklyInOneLine() throws IOException {
        final Path pcap = capture("in.pcap");
        final long startNs = System.nanoTime();
        final Run run = execute(
                "replay",
                "--config",
                "/dev/zero",
                "--in",
                "Ethernet0=" + pcap,
                "--out-dir",
                dir.resolve("out").toString());
        assertOneLineUserError(run, "replay", "/dev/zero", "not a text file");
        assertOneLineUserError(
                execute(
                        "replay",
                        "--config",
                        config().toString(),
                        "--in",
                        "Ethernet0=/dev/zero",
                        "--out-dir",
                        dir.resolve("out").toString()),
                "replay",
                "/dev/zero",
                "not a regular file");
        final Run zero = execute("run", "--config", "/dev/zero", "--p4runtime-port", "0");
        assertOneLineUserError(zero, "run", "/dev/zero", "not a text file");
        assertThat((System.nanoTime() - startNs) / 1e9)
                .as("seconds to refuse /dev/zero")
                .isLessThan(5);
    }

    @Test
    void shouldRefuseBadConfigFilesInOneLineNamingTheFile() throws IOException {
        final Path pcap = capture("in.pcap");
        final String out = dir.resolve("out").toString();
        final Path missing = dir.resolve("missing.json");
        assertOneLineUserError(
                execute("replay", "--config", missing.toString(), "--in", "Ethernet0=" + pcap, "--out-dir", out),
                "replay",
                missing.toString());
        final Path latin1 = Files.write(
                dir.resolve("latin1.json"),
                "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sw\u00e9\"}}}"
                        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertOneLineUserError(
                execute("replay", "--config", latin1.toString(), "--in", "Ethernet0=" + pcap, "--out-dir", out),
                "replay",
                latin1.toString(),
                "not UTF-8",
                "0xe9");
        final Path huge = dir.resolve("huge.json");
        try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
            f.setLength(ConfigFiles.MAX_CONFIG_BYTES + 1); // sparse: no disk used
        }
        assertOneLineUserError(
                execute("replay", "--config", huge.toString(), "--in", "Ethernet0=" + pcap, "--out-dir", out),
                "replay",
                huge.toString(),
                "larger than the 128 MiB");
        final Path refused = Files.writeString(dir.resolve("refused.json"), "{\"PORT\": {\"Ethernet0\": {}}}");
        assertOneLineUserError(
                execute("replay", "--config", refused.toString(), "--in", "Ethernet0=" + pcap, "--out-dir", out),
                "replay",
                refused.toString(),
                "PORT|Ethernet0|speed");
        final Path notJson = Files.writeString(dir.resolve("broken.json"), "{\"PORT\": {");
        assertOneLineUserError(
                execute("run", "--config", notJson.toString(), "--p4runtime-port", "0"),
                "run",
                notJson.toString(),
                "not valid JSON");
    }

    @Test
    void shouldRefuseAConfigWhosePortsAreFineButAnotherTableIsNotInOneLine() throws IOException {
        // `run` reads only the PORT table to map its links; the rest is refused when the pipeline compiles it
        final Path refused = Files.writeString(
                dir.resolve("wred.json"),
                "{\"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}},"
                        + " \"WRED_PROFILE\": {\"LOSSLESS\": {\"green_min_threshold\": \"lots\"}}}");
        assertOneLineUserError(
                execute("run", "--config", refused.toString(), "--p4runtime-port", "0"),
                "run",
                refused.toString(),
                "WRED_PROFILE|LOSSLESS|green_min_threshold");
    }

    @Test
    void shouldRefuseAnUnreadableConfigInOneLine() throws IOException {
        if (!"root".equals(System.getProperty("user.name"))) {
            final Path secret = Files.writeString(dir.resolve("secret.json"), CONFIG);
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("---------"));
            assertOneLineUserError(
                    execute("run", "--config", secret.toString(), "--p4runtime-port", "0"),
                    "run",
                    secret.toString(),
                    "not readable");
        }
        // root reads any file it may open; /proc/self/mem opens but fails with EIO at offset 0, like a bad disk
        assertOneLineUserError(
                execute(
                        "replay",
                        "--config",
                        "/proc/self/mem",
                        "--in",
                        "Ethernet0=" + capture("in.pcap"),
                        "--out-dir",
                        dir.resolve("out").toString()),
                "replay",
                "/proc/self/mem",
                "cannot read");
    }

    @Test
    void shouldRefuseBadCapturesAndOutDirsInOneLineNamingThem() throws IOException {
        final Path config = config();
        final Path good = capture("good.pcap");
        final byte[] bytes = Files.readAllBytes(good);
        final Path truncated = Files.write(dir.resolve("truncated.pcap"), Arrays.copyOf(bytes, bytes.length - 30));
        final Path wrongMagic = Files.write(dir.resolve("magic.pcap"), "not a capture at all, honest".getBytes());
        final Path empty = Files.write(dir.resolve("empty.pcap"), new byte[0]);
        final String out = dir.resolve("out").toString();
        for (final Path bad : List.of(truncated, wrongMagic, empty, dir.resolve("absent.pcap"), dir)) {
            assertOneLineUserError(
                    execute("replay", "--config", config.toString(), "--in", "Ethernet0=" + bad, "--out-dir", out),
                    "replay",
                    bad.toString());
        }
        final Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertOneLineUserError(
                execute(
                        "replay",
                        "--config",
                        config.toString(),
                        "--in",
                        "Ethernet0=" + good,
                        "--out-dir",
                        file.toString()),
                "replay",
                file.toString(),
                "not a directory");
        assertOneLineUserError(
                execute("replay", "--config", config.toString(), "--in", "Ethernet99=" + good, "--out-dir", out),
                "replay",
                "Ethernet99");
        final Run missingOption = execute("replay", "--config", config.toString());
        assertOneLineUserError(missingOption, "replay", "--in", "--help");
    }

    @Test
    void shouldRefuseIncompleteTlsOptionsInOneLine() throws IOException {
        final String config = config().toString();
        final Path pem = Files.writeString(dir.resolve("cert.pem"), "not a certificate");
        assertOneLineUserError(
                execute(
                        "run",
                        "--config",
                        config,
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--port-map",
                        "Ethernet4=aeNoSuch1",
                        "--p4runtime-tls-cert",
                        pem.toString()),
                "run",
                "--p4runtime-tls-key");
        assertOneLineUserError(
                execute(
                        "run",
                        "--config",
                        config,
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--port-map",
                        "Ethernet4=aeNoSuch1",
                        "--p4runtime-tls-client-ca",
                        pem.toString()),
                "run",
                "--p4runtime-tls-cert");
        assertOneLineUserError(
                execute(
                        "run",
                        "--config",
                        config,
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--port-map",
                        "Ethernet4=aeNoSuch1",
                        "--p4runtime-tls-cert",
                        pem.toString(),
                        "--p4runtime-tls-key",
                        dir.resolve("absent.key").toString()),
                "run",
                "absent.key");
        assertOneLineUserError(
                execute(
                        "run",
                        "--config",
                        config,
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--port-map",
                        "Ethernet4=aeNoSuch1",
                        "--p4runtime-max-calls-per-connection",
                        "0"),
                "run",
                "concurrent calls");
    }

    @Test
    void shouldRefuseAnRxRingDepthThatIsNoPowerOfTwoInOneLine() throws IOException {
        final String config = config().toString();
        for (final String frames : List.of("1000", "32", "131072")) {
            assertOneLineUserError(
                    execute(
                            "run",
                            "--config",
                            config,
                            "--port-map",
                            "Ethernet0=aeNoSuch0",
                            "--port-map",
                            "Ethernet4=aeNoSuch1",
                            "--rx-ring-frames",
                            frames),
                    "run",
                    "--rx-ring-frames must be a power of two 64..65536, not " + frames);
        }
    }

    @Test
    void shouldListenOnLoopbackOnlyByDefault() throws Exception {
        final java.net.InetAddress other = java.net.NetworkInterface.networkInterfaces()
                .filter(n -> !n.getName().equals("lo"))
                .flatMap(java.net.NetworkInterface::inetAddresses)
                .filter(a -> a instanceof java.net.Inet4Address && !a.isLoopbackAddress())
                .findFirst()
                .orElse(null);
        Assumptions.assumeTrue(other != null, "a non-loopback IPv4 address to try");
        final int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        final RunCommand run = new RunCommand();
        new CommandLine(run)
                .parseArgs(
                        "--config",
                        config().toString(),
                        "--port-map",
                        "Ethernet0=aeNoSuch0",
                        "--port-map",
                        "Ethernet4=aeNoSuch1",
                        "--p4runtime-port",
                        Integer.toString(port));
        try (LiveSwitch sw = run.start()) {
            try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
                assertThat(s.isConnected()).as("P4Runtime on 127.0.0.1").isTrue();
            }
            final java.net.Socket s = new java.net.Socket();
            try (s) {
                org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> s.connect(new java.net.InetSocketAddress(other, port), 2_000))
                        .as("P4Runtime on " + other)
                        .isInstanceOf(java.net.ConnectException.class);
            }
        }
    }

    @Test
    void shouldPrintTheStackTraceOnlyWithDebug() throws IOException {
        final Path wrongMagic = Files.write(dir.resolve("magic.pcap"), "not a capture at all, honest".getBytes());
        final Path config = config();
        final String[] args = {
            "replay",
            "--config",
            config.toString(),
            "--in",
            "Ethernet0=" + wrongMagic,
            "--out-dir",
            dir.resolve("out").toString()
        };
        final Run quiet = execute(args);
        assertOneLineUserError(quiet, "replay", wrongMagic.toString());
        final List<String> debugArgs = new ArrayList<>(List.of(args));
        debugArgs.add("--debug");
        final Run debug = execute(debugArgs.toArray(String[]::new));
        assertThat(debug.exit()).isEqualTo(2);
        assertThat(debug.err()).contains("\tat io.asicemu.");
        final List<String> before = new ArrayList<>(List.of("--debug"));
        before.addAll(List.of(args));
        assertThat(execute(before.toArray(String[]::new)).err())
                .as("--debug before the command")
                .contains("\tat io.asicemu.");
    }

    @Test
    void shouldWriteOnlyInsideTheOutDirWhateverThePortsAreCalled() throws IOException {
        final Path pcap = capture("in.pcap");
        final Path work = Files.createDirectories(dir.resolve("work"));
        for (final String port :
                List.of("../../../../elsewhere/x", dir.resolve("elsewhere/y").toString())) {
            final Path config = Files.writeString(work.resolve("config_db.json"), CONFIG.replace("Ethernet4", port));
            final Run run = execute(
                    "replay",
                    "--config",
                    config.toString(),
                    "--in",
                    "Ethernet0=" + pcap,
                    "--out-dir",
                    work.resolve("out").toString());
            assertThat(run.exit()).as(run.err()).isEqualTo(2);
            assertThat(run.errLines()).hasSize(1);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(p -> p.getFileName().toString().matches("[xy]\\.pcap"))
                            .toList())
                    .as("x.pcap or y.pcap anywhere")
                    .isEmpty();
        }
    }

    @Test
    void shouldLeaveNothingInTheTempFolderAfterDemo() throws IOException {
        final Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        final List<Path> before = demoDirs(tmp);
        final Run run = execute("demo");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("Captures removed on exit");
        assertThat(demoDirs(tmp)).as("asic-emu-demo-* folders left in " + tmp).isSubsetOf(before);
    }

    private static List<Path> demoDirs(final Path tmp) throws IOException {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(p -> p.getFileName().toString().startsWith("asic-emu-demo-"))
                    .toList();
        }
    }
}
