package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.mac;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.table.AclAction;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.IpPrefix;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Controller-owned router interfaces, next hops by interface id, group modify/remove and batch ACL (P4Runtime). */
@Timeout(30)
class ControllerTablesTest {
    private static final long ROUTER = 0x02_00_00_00_00_01L;
    private static final long RIF4_MAC = 0x02_00_00_00_aa_04L;
    private static final long RIF8_MAC = 0x02_00_00_00_aa_08L;
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:00:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.1.1/24": {}}}
        """;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);
    private final PipelineControl control = sw.pipeline.control();
    private final int rif4 = control.configRouterInterfaceCount();
    private final int rif8 = rif4 + 1;

    @AfterEach
    void close() {
        sw.close();
    }

    private void programTwoUplinks() {
        control.batch()
                .writeRouterInterface(rif4, "Ethernet4", RIF4_MAC, true)
                .writeRouterInterface(rif8, "Ethernet8", RIF8_MAC, true)
                .addNeighbor(rif4, IpPrefix.address("10.0.2.2"), 0x0200_0000_0202L)
                .addNeighbor(rif8, IpPrefix.address("10.0.3.2"), 0x0200_0000_0302L)
                .writeNextHop(1, rif4, IpPrefix.address("10.0.2.2"), true)
                .writeNextHop(2, rif8, IpPrefix.address("10.0.3.2"), true)
                .commit();
    }

    private byte[] send(final int dst) {
        sw.send("Ethernet0", Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), dst, 64, 10));
        sw.run();
        for (final String port : new String[] {"Ethernet4", "Ethernet8"}) {
            final var out = sw.take(port);
            if (!out.isEmpty()) {
                return out.get(0);
            }
        }
        return null;
    }

    @Test
    void shouldRouteOutOfControllerInterfaceWithItsMacWhenNextHopNamesInterfaceId() {
        programTwoUplinks();
        control.batch()
                .writeRoute(IpPrefix.parse("192.168.0.0/16"), 2, false, true)
                .commit();
        final byte[] out = send(ip(192, 168, 1, 1));
        assertThat(out).isNotNull();
        assertThat(mac(out, 0)).as("neighbor MAC").isEqualTo(0x0200_0000_0302L);
        assertThat(mac(out, 6)).as("the interface's MAC").isEqualTo(RIF8_MAC);
        control.batch()
                .writeRouterInterface(rif8, "Ethernet8", 0x02_00_00_00_bb_08L, false)
                .commit();
        assertThat(mac(send(ip(192, 168, 1, 1)), 6)).isEqualTo(0x02_00_00_00_bb_08L);
        control.batch()
                .writeNextHop(2, rif4, IpPrefix.address("10.0.2.2"), false)
                .commit();
        assertThat(mac(send(ip(192, 168, 1, 1)), 0))
                .as("next hop moved to Ethernet4")
                .isEqualTo(0x0200_0000_0202L);
    }

    @Test
    void shouldRouteWithTheNeighborsCurrentMacWhenNeighborChangesAfterPacketsWereRouted() {
        programTwoUplinks();
        control.batch()
                .writeRoute(IpPrefix.parse("192.168.0.0/16"), 1, false, true)
                .commit();
        assertThat(mac(send(ip(192, 168, 1, 1)), 0)).isEqualTo(0x0200_0000_0202L);
        control.batch()
                .addNeighbor(rif4, IpPrefix.address("10.0.2.2"), 0x0200_0000_0a0aL)
                .commit();
        assertThat(mac(send(ip(192, 168, 1, 1)), 0)).as("MAC changed").isEqualTo(0x0200_0000_0a0aL);
        control.batch().removeNeighbor(IpPrefix.address("10.0.3.2")).commit();
        assertThat(mac(send(ip(192, 168, 1, 1)), 0))
                .as("another neighbor deleted")
                .isEqualTo(0x0200_0000_0a0aL);
        control.batch().removeNeighbor(IpPrefix.address("10.0.2.2")).commit();
        assertThat(send(ip(192, 168, 1, 1)))
                .as("neighbor deleted: not forwarded")
                .isNull();
        control.batch()
                .addNeighbor(rif4, IpPrefix.address("10.0.2.2"), 0x0200_0000_0b0bL)
                .commit();
        assertThat(mac(send(ip(192, 168, 1, 1)), 0)).as("re-added").isEqualTo(0x0200_0000_0b0bL);
    }

    @Test
    void shouldRefuseRemovingReferencedObjectsAndApplyRemovalsInOrderWhenUnreferenced() {
        programTwoUplinks();
        control.batch()
                .addGroup(7, "g7", new int[] {1, 2}, new int[] {1, 1})
                .writeRouteToGroup(IpPrefix.parse("172.16.0.0/12"), 7, true)
                .commit();
        assertThatThrownBy(() -> control.batch().removeNextHop(1))
                .isInstanceOfSatisfying(
                        TableException.class,
                        e -> assertThat(e.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION));
        assertThatThrownBy(() -> control.batch().removeGroup(7))
                .isInstanceOfSatisfying(
                        TableException.class,
                        e -> assertThat(e.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION));
        assertThatThrownBy(() -> control.batch().removeRouterInterface(rif4))
                .isInstanceOfSatisfying(
                        TableException.class,
                        e -> assertThat(e.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION));
        assertThatThrownBy(() -> control.batch().writeRouterInterface(rif4 + 5, "Ethernet4", 1L, true))
                .as("one interface per port")
                .isInstanceOfSatisfying(
                        TableException.class, e -> assertThat(e.code()).isEqualTo(TableException.Code.ALREADY_EXISTS));
        control.batch()
                .deleteRoute(IpPrefix.parse("172.16.0.0/12"))
                .removeGroup(7)
                .removeNextHop(1)
                .removeRouterInterface(rif4)
                .commit();
        assertThat(send(ip(172, 16, 0, 1))).isNull();
        assertThatThrownBy(() -> control.batch().writeNextHop(3, rif4, IpPrefix.address("10.0.2.2"), true))
                .isInstanceOfSatisfying(
                        TableException.class, e -> assertThat(e.code()).isEqualTo(TableException.Code.NOT_FOUND));
    }

    @Test
    void shouldFollowNewWeightsWhenGroupIsModified() {
        programTwoUplinks();
        control.batch()
                .addGroup(7, "g7", new int[] {1, 2}, new int[] {1, 1})
                .writeRouteToGroup(IpPrefix.parse("172.16.0.0/12"), 7, true)
                .commit();
        control.batch().modifyGroup(7, "g7", new int[] {2}, new int[] {3}).commit();
        for (int i = 0; i < 32; i++) {
            sw.send(
                    "Ethernet0",
                    Frames.udp4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 2), ip(172, 16, i, 1))
                                    .udpPorts(1000 + i, 2000),
                            10));
        }
        sw.run();
        assertThat(sw.take("Ethernet8")).hasSize(32);
        assertThat(sw.take("Ethernet4")).isEmpty();
    }

    @Test
    void shouldInstallAclWithRoutesAtomicallyAndNameItsCounters() {
        programTwoUplinks();
        control.batch()
                .writeRoute(IpPrefix.parse("192.168.0.0/16"), 1, false, true)
                .replaceAcl(List.of(new AclRule("P4RT|drop-udp-to-9", 10)
                        .ipProtocol(17)
                        .dstIpv4(ip(192, 168, 9, 0), 24)
                        .action(AclAction.DROP)))
                .commit();
        assertThat(send(ip(192, 168, 9, 1))).isNull();
        assertThat(send(ip(192, 168, 8, 1))).isNotNull();
        assertThat(control.counters().aclRules().get("P4RT|drop-udp-to-9")).containsEntry("Packets", 1L);
    }
}
