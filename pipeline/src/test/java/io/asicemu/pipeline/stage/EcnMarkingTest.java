package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.u16;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ECN marking decided by the traffic manager's WRED at dequeue is written into the frame on its way out: ECT(0)
 * becomes CE with a valid IPv4 header checksum once the queue passes Kmax (SONiC marks 100 % there, reference §7).
 */
@Timeout(30)
class EcnMarkingTest {
    static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}},
         "WRED_PROFILE": {"W": {"wred_green_enable": "true", "green_min_threshold": "2000",
                                "green_max_threshold": "4000", "green_drop_probability": "100", "ecn": "ecn_all"}},
         "QUEUE": {"Ethernet4|0": {"wred_profile": "W"}}}
        """;

    private static boolean checksumValid(final byte[] f) {
        long sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += u16(f, i);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return sum == 0xffff;
    }

    @Test
    void shouldMarkCeWithValidChecksumWhenQueueIsAboveKmaxAtDequeue() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            for (int i = 0; i < 20; i++) {
                // Arrivals back to back at the 100G ingress line rate; the 10G egress drains 10x slower.
                sw.send(
                        "Ethernet0",
                        Frames.udp4(
                                Frames.builder()
                                        .macs(ROUTER, HOST_A)
                                        .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                                        .ecn(2),
                                1000));
                sw.pipeline.agent().doWork();
                sw.clock.advanceNs(84);
            }
            sw.run();
            final List<byte[]> out = sw.take("Ethernet4");
            assertThat(out).hasSize(20);
            assertThat(out.get(0)[15] & 3)
                    .as("first frame leaves an empty queue: ECT(0)")
                    .isEqualTo(2);
            assertThat(out.get(5)[15] & 3).as("queue far above Kmax: CE").isEqualTo(3);
            assertThat(out).allSatisfy(f -> assertThat(checksumValid(f)).isTrue());
            assertThat(out.get(out.size() - 1)[15] & 3)
                    .as("last frame leaves an empty queue")
                    .isEqualTo(2);
        }
    }
}
