package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** An invalid config is refused whole: exit 2 and one line naming the place, before any output is written. */
class ReplayConfigRefusalTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                "{\"PORT\": {\"Ethernet0\": {\"speed\": \"10000\"}}, \"QUEUE\": {\"Ethernet0|3\": {\"wred_profle\": \"W\"}}};"
                        + "QUEUE|Ethernet0|3|wred_profle: unknown field",
                "{\"PORT\": {\"../../x\": {\"speed\": \"10000\"}}};PORT|../../x|: a port name must be",
                "{\"PORT\": {\"Ethernet0\": {\"speed\": 10000}}};PORT|Ethernet0|speed: values must be strings",
                "{\"PORT\": {}, \"PORT\": {}};not valid JSON: Duplicate field 'PORT'"
            })
    void shouldExitTwoWithOneLineNamingThePlaceWhenTheConfigIsRefused(final String json, final String expected)
            throws Exception {
        final Path config = Files.writeString(dir.resolve("config_db.json"), json);
        // An empty but valid little-endian pcap (global header only, Ethernet), so only the config can be refused.
        final Path capture = Files.write(dir.resolve("empty.pcap"), new byte[] {
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
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final var cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        final int exit = cli.execute(
                "replay",
                "--config",
                config.toString(),
                "--in",
                "Ethernet0=" + capture,
                "--out-dir",
                dir.resolve("out").toString());
        assertThat(exit).isEqualTo(2);
        // One line naming the file, then the place (issue 14's error format).
        assertThat(err.toString().strip())
                .doesNotContain("\n")
                .startsWith("replay: " + config + ": configuration refused: ")
                .contains(expected);
        if (Files.exists(dir.resolve("out"))) {
            try (var written = Files.list(dir.resolve("out"))) {
                assertThat(written).as("nothing written for a refused config").isEmpty();
            }
        }
    }

    @org.junit.jupiter.api.Test
    void shouldLoadWithOneWarningPerDroppedTableWhenLenient() throws Exception {
        final Path config = Files.writeString(
                dir.resolve("config_db.json"),
                "{\"PORT\": {\"Ethernet0\": {\"speed\":"
                        + " \"10000\", \"admin_status\": \"up\"}}, \"SNMP_COMMUNITY\": {\"public\": {\"TYPE\": \"RO\"}}}");
        final Path capture = Files.write(dir.resolve("empty.pcap"), new byte[] {
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
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final var cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        final String[] args = {
            "replay",
            "--config",
            config.toString(),
            "--in",
            "Ethernet0=" + capture,
            "--out-dir",
            dir.resolve("out").toString()
        };
        assertThat(cli.execute(args)).as("strict").isEqualTo(2);
        final StringWriter lenientErr = new StringWriter();
        final var lenient = Main.commandLine();
        lenient.setOut(new PrintWriter(out));
        lenient.setErr(new PrintWriter(lenientErr));
        final String[] lenientArgs = java.util.Arrays.copyOf(args, args.length + 1);
        lenientArgs[args.length] = "--lenient";
        assertThat(lenient.execute(lenientArgs)).as(lenientErr.toString()).isZero();
        assertThat(lenientErr.toString().strip()).isEqualTo("replay: warning: SNMP_COMMUNITY||: unknown table ignored");
    }
}
