package io.asicemu.pipeline.buffer;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.stage.PacketBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An internal resource that runs out before the buffer model refuses a frame is a bug, never a buffer rule: forcing
 * it (a store of two 208-byte cells installed under a traffic manager with megabytes of room) counts the refused
 * frames under ASICEMU_OUT_DROP_REASON_PACKET_STORE_EXHAUSTED and IF_OUT_DISCARDS, not under BUFFER_FULL, and the
 * frames that fit still leave.
 */
@Timeout(60)
class InternalResourceExhaustionTest {
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.2.1/24": {}},
         "NEIGH": {"Ethernet4|10.0.2.2": {"neigh": "02:00:00:00:02:02"}},
         "STATIC_ROUTE": {"192.168.0.0/16": {"nexthop": "10.0.2.2"}}}""";

    @Test
    void shouldCountStoreExhaustionUnderItsOwnReasonWhenTheStoreRunsOutBeforeTheModel() {
        try (SwitchFixture sw = new SwitchFixture(CONFIG)) {
            sw.pipeline
                    .control()
                    .submit(a -> a.onInstall(
                            a.tables(),
                            a.trafficManager(),
                            new PacketBuffer(2, a.trafficManager().cellBytes(), 9_728)));
            sw.pipeline.agent().doWork();
            for (int i = 0; i < 5; i++) { // 5 frames of 142 B (one cell each) in one RX batch: 2 fit, 3 do not
                sw.send(
                        "Ethernet0",
                        Frames.udp4(
                                Frames.builder().macs(ROUTER, HOST_A).ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1)), 100));
            }
            sw.run();
            assertThat(sw.take("Ethernet4")).hasSize(2);
            assertThat(sw.counter("Ethernet4", "ASICEMU_OUT_DROP_REASON_PACKET_STORE_EXHAUSTED"))
                    .isEqualTo(3);
            assertThat(sw.counter("Ethernet4", "SAI_PORT_STAT_IF_OUT_DISCARDS")).isEqualTo(3);
            assertThat(sw.counter("Ethernet4", "ASICEMU_OUT_DROP_REASON_BUFFER_FULL"))
                    .isZero();
        }
    }
}
