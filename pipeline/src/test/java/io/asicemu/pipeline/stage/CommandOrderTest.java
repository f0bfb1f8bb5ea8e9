package io.asicemu.pipeline.stage;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ROUTER;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.table.IpPrefix;
import org.junit.jupiter.api.Test;

/**
 * A controller's write reaches only frames that arrive after it: a frame already waiting in a port's ring when a
 * command is queued (the data-plane thread had not run yet, as on a loaded machine) is forwarded by the tables as they
 * were when it arrived. On a chip that frame would have left long before the controller's next write. A frame that
 * arrives once the command is queued sees the command.
 */
class CommandOrderTest {
    private static final IpPrefix CONTROLLER_ROUTE = IpPrefix.parse("172.16.0.0/16");

    private static byte[] toControllerRoute() {
        return Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(172, 16, 1, 1), 64, 64);
    }

    /** Queues the controller's route (and its next hop) as one batch. */
    private static void insertControllerRoute(final SwitchFixture sw) {
        sw.pipeline
                .control()
                .batch()
                .addNextHop(100, "Ethernet4", IpPrefix.address("10.0.2.2"))
                .writeRoute(CONTROLLER_ROUTE, 100, false, true)
                .commit();
    }

    @Test
    void shouldForwardAFrameThatArrivedBeforeADeleteByTheRouteItArrivedUnder() {
        try (SwitchFixture sw = new SwitchFixture(RoutingStagesTest.CONFIG)) {
            insertControllerRoute(sw);
            sw.run();
            sw.take("Ethernet4");

            sw.send("Ethernet0", toControllerRoute());
            sw.clock.nowNs(sw.clock.nowNs() + 1_000); // the controller writes 1 µs after the frame came
            sw.pipeline.control().batch().deleteRoute(CONTROLLER_ROUTE).commit();
            sw.run();
            assertThat(sw.take("Ethernet4"))
                    .as("the frame that came before the delete")
                    .hasSize(1);

            sw.send("Ethernet0", toControllerRoute());
            sw.run();
            assertThat(sw.take("Ethernet4")).as("a frame after the delete").isEmpty();
        }
    }

    @Test
    void shouldNotForwardAFrameThatArrivedBeforeAnInsertByTheNewRoute() {
        try (SwitchFixture sw = new SwitchFixture(RoutingStagesTest.CONFIG)) {
            sw.run();
            sw.take("Ethernet4");

            sw.send("Ethernet0", toControllerRoute());
            sw.clock.nowNs(sw.clock.nowNs() + 1_000); // the controller writes 1 µs after the frame came
            insertControllerRoute(sw);
            sw.run();
            assertThat(sw.take("Ethernet4"))
                    .as("the frame that came before the insert")
                    .isEmpty();

            sw.send("Ethernet0", toControllerRoute());
            sw.run();
            assertThat(sw.take("Ethernet4")).as("a frame after the insert").hasSize(1);
        }
    }

    @Test
    void shouldForwardAFrameThatArrivedAfterAnInsertWasQueuedByTheNewRoute() {
        try (SwitchFixture sw = new SwitchFixture(RoutingStagesTest.CONFIG)) {
            sw.run();
            sw.take("Ethernet4");

            insertControllerRoute(sw);
            sw.clock.nowNs(sw.clock.nowNs() + 1_000);
            sw.send("Ethernet0", toControllerRoute());
            sw.run();
            assertThat(sw.take("Ethernet4"))
                    .as("the frame that came after the insert was queued")
                    .hasSize(1);
        }
    }
}
