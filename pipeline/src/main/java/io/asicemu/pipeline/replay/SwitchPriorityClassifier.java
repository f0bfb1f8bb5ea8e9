package io.asicemu.pipeline.replay;

import io.asicemu.pipeline.table.QosMaps;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A link partner's priority for a frame, taken from the switch's own classification of that ingress port
 * ({@link QosMaps#trafficClass}: DOT1P_TO_TC for a tagged frame when the port has a dot1p map, else DSCP_TO_TC for
 * IPv4/IPv6, else 0). A partner NIC configured with the same DSCP→priority map sends its frames on the priority the
 * switch will count them on, so PFC bit n pauses exactly the frames of traffic class n. Classes above 7 are never
 * paused. Not thread safe; used while a {@link LinkPartnerPort} is built.
 */
final class SwitchPriorityClassifier implements LinkPartnerPort.PriorityClassifier {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int VLAN = 0x8100;
    private static final int QINQ = 0x88a8;
    private static final int IPV4 = 0x0800;
    private static final int IPV6 = 0x86dd;

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
        if (length < 14) {
            return -1;
        }
        int typeAt = 12;
        int type = frame.get(U16, offset + typeAt) & 0xffff;
        boolean tagged = false;
        int pcp = 0;
        while ((type == VLAN || type == QINQ) && length >= typeAt + 6) {
            if (!tagged) {
                pcp = (frame.get(U16, offset + typeAt + 2) & 0xffff) >>> 13;
                tagged = true;
            }
            typeAt += 4;
            type = frame.get(U16, offset + typeAt) & 0xffff;
        }
        final long l3 = offset + typeAt + 2;
        int dscp = 0;
        boolean isIp = false;
        if (type == IPV4 && length >= typeAt + 4) {
            isIp = true;
            dscp = (frame.get(ValueLayout.JAVA_BYTE, l3 + 1) & 0xff) >>> 2;
        } else if (type == IPV6 && length >= typeAt + 4) {
            isIp = true;
            dscp = ((frame.get(U16, l3) & 0xffff) >>> 6) & 0x3f;
        }
        final int tc = qos.trafficClass(port, tagged, pcp, isIp, dscp);
        return tc < 8 ? tc : -1;
    }
}
