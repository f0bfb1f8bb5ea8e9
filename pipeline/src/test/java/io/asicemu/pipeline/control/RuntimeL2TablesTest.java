package io.asicemu.pipeline.control;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.HOST_B;
import static io.asicemu.pipeline.Frames.ip;
import static io.asicemu.pipeline.Frames.u16;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.asicemu.pipeline.Frames;
import io.asicemu.pipeline.SwitchFixture;
import io.asicemu.pipeline.cpu.LearnRing;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * VLANs, VLAN members, static FDB entries and multicast groups edited at run time through {@link TableBatch}, seen by
 * frames through the real pipeline; the FDB's learn events in the {@link LearnRing}.
 */
@Timeout(30)
class RuntimeL2TablesTest {
    private static final String CONFIG = """
        {"PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"},
                  "Ethernet12": {"speed": "10000", "admin_status": "up"}},
         "VLAN": {"Vlan100": {"vlanid": "100"}},
         "VLAN_MEMBER": {"Vlan100|Ethernet12": {"tagging_mode": "untagged"}}}
        """;
    private static final long HOST_C = 0x0200_0000_0302L;

    private final SwitchFixture sw = new SwitchFixture(CONFIG);
    private final PipelineControl control = sw.pipeline.control();

    @AfterEach
    void close() {
        sw.close();
    }

    private static byte[] frame(final long dst, final long src) {
        return Frames.udp4(dst, src, ip(10, 0, 0, 1), ip(10, 0, 0, 2), 64, 100);
    }

    private void vlan10() {
        control.batch()
                .writeVlan(10, 0, true)
                .writeVlanMember(10, "Ethernet0", false, true)
                .writeVlanMember(10, "Ethernet4", false, true)
                .writeVlanMember(10, "Ethernet8", true, true)
                .commit();
    }

    private List<long[]> drainLearned() {
        final List<long[]> out = new ArrayList<>();
        control.cpuPort().learnEvents().poll((vlan, mac, port, ns) -> out.add(new long[] {vlan, mac, port, ns}), 100);
        return out;
    }

    @Test
    void shouldFloodToRuntimeVlanMembersAndTagTheTaggedOneWhenDestinationIsUnknown() {
        vlan10();
        sw.send("Ethernet0", frame(HOST_B, HOST_A));
        sw.run();
        final byte[] sent = frame(HOST_B, HOST_A);
        assertThat(sw.take("Ethernet4")).hasSize(1).first().isEqualTo(sent);
        final List<byte[]> tagged = sw.take("Ethernet8");
        assertThat(tagged).hasSize(1);
        assertThat(u16(tagged.get(0), 12)).isEqualTo(0x8100);
        assertThat(u16(tagged.get(0), 14) & 0xfff).isEqualTo(10);
        assertThat(sw.take("Ethernet12")).as("not a member of VLAN 10").isEmpty();
        assertThat(sw.take("Ethernet0")).as("never back to the source").isEmpty();
    }

    @Test
    void shouldReportEachNewAndMovedMacOnceWhenTheFdbLearns() {
        vlan10();
        final long t0 = sw.clock.nowNs();
        sw.send("Ethernet0", frame(HOST_B, HOST_A));
        sw.run();
        sw.send("Ethernet0", frame(HOST_B, HOST_A));
        sw.run();
        sw.send("Ethernet4", frame(HOST_B, HOST_A));
        sw.run();
        final List<long[]> events = drainLearned();
        assertThat(events).hasSize(2);
        assertThat(events.get(0)).containsExactly(10, HOST_A, control.portIndex("Ethernet0"), t0);
        assertThat(events.get(1)[2]).as("the move").isEqualTo(control.portIndex("Ethernet4"));
        assertThat(drainLearned()).isEmpty();
    }

    @Test
    void shouldDropAndCountLearnEventsWhenTheRingIsFull() {
        vlan10();
        final LearnRing ring = control.cpuPort().learnEvents();
        for (int i = 0; i < ring.capacity() + 5; i++) {
            sw.send("Ethernet0", frame(HOST_B, 0x0200_0001_0000L + i));
            sw.run();
            sw.take("Ethernet4");
            sw.take("Ethernet8");
        }
        assertThat(ring.pending()).isEqualTo(ring.capacity());
        assertThat(ring.dropped()).isEqualTo(5);
        final var fdb = control.fdbEntries();
        sw.pipeline.agent().doWork();
        assertThat(fdb.join()).as("learning goes on regardless").hasSize(ring.capacity() + 5);
    }

    @Test
    void shouldForwardToOnePortWhenAStaticFdbEntryMatches() {
        vlan10();
        control.batch().addStaticFdb(10, HOST_C, "Ethernet8").commit();
        sw.send("Ethernet0", frame(HOST_C, HOST_A));
        sw.run();
        assertThat(sw.take("Ethernet8")).hasSize(1);
        assertThat(sw.take("Ethernet4")).isEmpty();
        control.batch().removeFdb(10, HOST_C).commit();
        sw.send("Ethernet0", frame(HOST_C, HOST_A));
        sw.run();
        assertThat(sw.take("Ethernet4")).as("flooded again once removed").hasSize(1);
    }

    @Test
    void shouldReplicateToTheGroupsPortsWhenTheVlanFloodsToAMulticastGroup() {
        control.batch()
                .writeMulticastGroup(7, List.of("Ethernet4", "Ethernet12", "Ethernet12"), true)
                .writeVlan(20, 7, true)
                .writeVlanMember(20, "Ethernet0", false, true)
                .writeVlanMember(20, "Ethernet4", true, true)
                .writeVlanMember(20, "Ethernet8", true, true)
                .commit();
        sw.send("Ethernet0", frame(HOST_B, HOST_A));
        sw.run();
        final List<byte[]> four = sw.take("Ethernet4");
        assertThat(four).hasSize(1);
        assertThat(u16(four.get(0), 14) & 0xfff).as("tagged member of VLAN 20").isEqualTo(20);
        assertThat(sw.take("Ethernet12"))
                .as("two replicas, untagged (not a VLAN 20 member)")
                .hasSize(2)
                .allSatisfy(f -> assertThat(u16(f, 12)).isEqualTo(0x0800));
        assertThat(sw.take("Ethernet8")).as("member, but not a replica").isEmpty();
    }

    @Test
    void shouldRefuseAndChangeNothingWhenAMemberNamesAnUnknownVlanOrPort() {
        final TableException noVlan = catchThrowableOfType(
                TableException.class,
                () -> control.batch().writeVlan(10, 0, true).writeVlanMember(11, "Ethernet0", false, true));
        assertThat(noVlan.code()).isEqualTo(TableException.Code.NOT_FOUND);
        final TableException noPort = catchThrowableOfType(
                TableException.class,
                () -> control.batch().writeVlan(10, 0, true).writeVlanMember(10, "Ethernet99", false, true));
        assertThat(noPort.code()).isEqualTo(TableException.Code.NOT_FOUND);
        final TableException pvid = catchThrowableOfType(
                TableException.class,
                () -> control.batch().writeVlan(10, 0, true).writeVlanMember(10, "Ethernet12", false, true));
        assertThat(pvid.code())
                .as("Ethernet12 is untagged in VLAN 100")
                .isEqualTo(TableException.Code.FAILED_PRECONDITION);
        sw.run();
        // VLAN 10 was never committed: a frame tagged 10 is filtered, and VLAN 10 can still be created
        sw.send(
                "Ethernet0",
                Frames.udp4(
                        Frames.builder().macs(HOST_B, HOST_A).vlan(10, 0).ipv4(ip(10, 0, 0, 1), ip(10, 0, 0, 2)), 10));
        sw.run();
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_INGRESS_VLAN_FILTER")
                        + sw.counter("Ethernet0", "SAI_IN_DROP_REASON_VLAN_TAG_NOT_ALLOWED"))
                .isEqualTo(1);
        vlan10();
    }

    @Test
    void shouldRefuseARouterInterfaceOnAVlanMemberAndAMembershipOnARoutedPort() {
        vlan10();
        final int rif = control.configRouterInterfaceCount();
        final TableException member = catchThrowableOfType(
                TableException.class,
                () -> control.batch().writeRouterInterface(rif, "Ethernet4", 0x0200_0000_aa04L, true));
        assertThat(member.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION);
        control.batch()
                .removeVlanMember(100, "Ethernet12") // it leaves VLAN 100 and is routed, in one batch
                .writeRouterInterface(rif, "Ethernet12", 0x0200_0000_aa0cL, true)
                .commit();
        final TableException routed = catchThrowableOfType(
                TableException.class, () -> control.batch().writeVlanMember(10, "Ethernet12", true, true));
        assertThat(routed.code()).as("Ethernet12 is now routed").isEqualTo(TableException.Code.FAILED_PRECONDITION);
    }

    @Test
    void shouldStopBridgingAPortWhenItsMembershipAndThenTheVlanAreRemoved() {
        vlan10();
        final TableException inUse =
                catchThrowableOfType(TableException.class, () -> control.batch().removeVlan(10));
        assertThat(inUse.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION);
        control.batch().removeVlanMember(10, "Ethernet4").commit();
        sw.send("Ethernet0", frame(HOST_B, HOST_A));
        sw.run();
        assertThat(sw.take("Ethernet4")).isEmpty();
        assertThat(sw.take("Ethernet8")).hasSize(1);
        control.batch()
                .removeVlanMember(10, "Ethernet0")
                .removeVlanMember(10, "Ethernet8")
                .removeVlan(10)
                .commit();
        sw.send("Ethernet0", frame(HOST_B, HOST_A));
        sw.run();
        assertThat(sw.take("Ethernet8")).isEmpty();
        assertThat(sw.counter("Ethernet0", "SAI_IN_DROP_REASON_VLAN_TAG_NOT_ALLOWED"))
                .isEqualTo(1);
        final TableException configVlan = catchThrowableOfType(
                TableException.class,
                () -> control.batch().removeVlanMember(100, "Ethernet12").removeVlan(100));
        assertThat(configVlan.code()).isEqualTo(TableException.Code.FAILED_PRECONDITION);
    }
}
