package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our inet_ntop against the C library's (Python's socket.inet_ntop calls it), on edge cases and many random ones. */
class AddressTextTest {
    @Test
    void shouldFormatIpv6AsTheCLibraryDoes(@TempDir final Path dir) throws Exception {
        final List<byte[]> addresses = new ArrayList<>();
        for (final String edge : List.of(
                "00000000000000000000000000000000",
                "00000000000000000000000000000001",
                "00000000000000000000ffff0a000001",
                "0000000000000000000000000a000001",
                "000000000000000000000000ffff0001",
                "20010db8000000000001000000000001",
                "20010db8000000010000000000000000",
                "20010db8000100000000000100000000",
                "fe800000000000000000000000000001",
                "00010000000000000000000000000000",
                "20010db80000000100000001000000000".substring(0, 32))) {
            addresses.add(HexFormat.of().parseHex(edge));
        }
        final SplittableRandom random = new SplittableRandom();
        for (int i = 0; i < 3000; i++) {
            final byte[] address = new byte[16];
            for (int word = 0; word < 8; word++) {
                if (random.nextInt(3) != 0) { // mostly zero groups, so that runs of every length and place occur
                    continue;
                }
                final int value = random.nextInt(4) == 0 ? random.nextInt(1, 16) : random.nextInt(0x10000);
                address[2 * word] = (byte) (value >> 8);
                address[2 * word + 1] = (byte) value;
            }
            addresses.add(address);
        }
        final StringBuilder input = new StringBuilder();
        for (final byte[] address : addresses) {
            input.append(HexFormat.of().formatHex(address)).append('\n');
        }
        final Path in = Files.writeString(dir.resolve("addresses.txt"), input);
        final Path script = Files.writeString(
                dir.resolve("ntop.py"),
                "import socket, sys\n"
                        + "for line in open(sys.argv[1]):\n"
                        + "    print(socket.inet_ntop(socket.AF_INET6, bytes.fromhex(line.strip())))\n");
        final String[] expected = ProcessRunner.run(
                        null, Duration.ofSeconds(60), List.of("/usr/bin/python3", script.toString(), in.toString()))
                .requireSuccess()
                .stdout()
                .split("\n");
        assertThat(expected).hasSameSizeAs(addresses);
        for (int i = 0; i < addresses.size(); i++) {
            assertThat(AddressText.format(addresses.get(i)))
                    .as(HexFormat.of().formatHex(addresses.get(i)))
                    .isEqualTo(expected[i]);
        }
    }

    @Test
    void shouldFormatIpv4DottedDecimal() {
        assertThat(AddressText.format(new byte[] {10, 0, (byte) 255, 1})).isEqualTo("10.0.255.1");
    }
}
