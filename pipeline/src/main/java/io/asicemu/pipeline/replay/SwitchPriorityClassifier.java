package io.asicemu.pipeline.replay;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.Ipv4Flyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.VlanTagFlyweight;
import io.asicemu.pipeline.table.QosMaps;
import java.lang.foreign.MemorySegment;

/**
 * A link partner's priority for a frame, taken from the switch's own classification of that ingress port
 * ({@link QosMaps#trafficClass}: DOT1P_TO_TC for a tagged frame when the port has a dot1p map, else DSCP_TO_TC for
 * IPv4/IPv6, else 0). A partner NIC configured with the same DSCP→priority map sends its frames on the priority the
 * switch will count them on, so PFC bit n pauses exactly the frames of traffic class n. Classes above 7 are never
 * paused. Not thread safe; used while a {@link LinkPartnerPort} is built.
 */
final class SwitchPriorityClassifier implements LinkPartnerPort.PriorityClassifier {
    private final QosMaps qos;
    private final int port;

    private SwitchPriorityClassifier(final QosMaps qos, final int port) {
        this.qos = qos;
        this.port = port;
    }

    /**
     * @param qos the switch's compiled QoS maps.
     * @param port the ingress port index.
     * @return the classifier.
     */
    static SwitchPriorityClassifier of(final QosMaps qos, final int port) {
        return new SwitchPriorityClassifier(qos, port);
    }

    @Override
    public int priority(final MemorySegment frame, final long offset, final int length) {
        if (length < EthernetFlyweight.HEADER_LENGTH) {
            return -1;
        }
        int typeAt = EthernetFlyweight.ETHER_TYPE_OFFSET; // a tag's TPID sits where the EtherType would
        int type = NetworkOrder.u16(frame, offset + typeAt);
        boolean tagged = false;
        int pcp = 0;
        while ((type == EtherType.VLAN || type == EtherType.QINQ)
                && length >= typeAt + VlanTagFlyweight.NEXT_ETHER_TYPE_OFFSET + 2) {
            if (!tagged) {
                pcp = NetworkOrder.u16(frame, offset + typeAt + VlanTagFlyweight.TCI_OFFSET) >>> 13;
                tagged = true;
            }
            typeAt += VlanTagFlyweight.TAG_LENGTH;
            type = NetworkOrder.u16(frame, offset + typeAt);
        }
        final long l3 = offset + typeAt + 2;
        int dscp = 0;
        boolean isIp = false;
        if (type == EtherType.IPV4 && length >= typeAt + 4) {
            isIp = true;
            dscp = NetworkOrder.u8(frame, l3 + Ipv4Flyweight.TOS_OFFSET) >>> 2;
        } else if (type == EtherType.IPV6 && length >= typeAt + 4) {
            isIp = true;
            dscp = (NetworkOrder.u16(frame, l3) >>> 6) & 0x3f; // traffic class bits 4..11, DSCP its upper six
        }
        final int tc = qos.trafficClass(port, tagged, pcp, isIp, dscp);
        return tc < 8 ? tc : -1;
    }
}
