package io.asicemu.routing;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;

/**
 * Builds rtnetlink route messages and FPM frames for tests, written from linux/rtnetlink.h apart from the decoder
 * (no shared constants), so that the two can disagree.
 */
final class RouteFrames {
    private RouteFrames() {}

    /** One rtnexthop: gateway (null: none), ifindex, rtnh_hops. */
    record Hop(InetAddress gateway, int ifindex, int hops) {}

    /** A message under construction: the rtmsg header and its attributes. */
    static final class Message {
        private final int type;
        private final byte[] rtmsg = new byte[12];
        private final ByteArrayOutputStream attributes = new ByteArrayOutputStream();

        Message(
                final int type,
                final int family,
                final int dstLength,
                final int table,
                final int protocol,
                final int routeType) {
            this.type = type;
            rtmsg[0] = (byte) family;
            rtmsg[1] = (byte) dstLength;
            rtmsg[4] = (byte) table;
            rtmsg[5] = (byte) protocol;
            rtmsg[7] = (byte) routeType;
        }

        Message attribute(final int attributeType, final byte[] value) {
            attributes.writeBytes(rtattr(attributeType, value));
            return this;
        }

        Message u32(final int attributeType, final long value) {
            return attribute(attributeType, le32(value));
        }

        Message multipath(final List<Hop> hops) {
            final ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (final Hop hop : hops) {
                final byte[] gateway = hop.gateway() == null
                        ? new byte[0]
                        : rtattr(5, hop.gateway().getAddress());
                final ByteBuffer rtnh = ByteBuffer.allocate(8 + gateway.length).order(ByteOrder.nativeOrder());
                rtnh.putShort((short) (8 + gateway.length))
                        .put((byte) 0)
                        .put((byte) hop.hops())
                        .putInt(hop.ifindex());
                rtnh.put(gateway);
                all.writeBytes(rtnh.array());
            }
            return attribute(9, all.toByteArray());
        }

        byte[] bytes() {
            final byte[] attrs = attributes.toByteArray();
            final ByteBuffer message =
                    ByteBuffer.allocate(16 + 12 + attrs.length).order(ByteOrder.nativeOrder());
            message.putInt(message.capacity())
                    .putShort((short) type)
                    .putShort((short) 0)
                    .putInt(1)
                    .putInt(0);
            message.put(rtmsg).put(attrs);
            return message.array();
        }
    }

    static Message newRoute(final int family, final int dstLength, final int protocol, final int routeType) {
        return new Message(24, family, dstLength, 254, protocol, routeType);
    }

    static Message deleteRoute(final int family, final int dstLength) {
        return new Message(25, family, dstLength, 254, 0, 1);
    }

    /** An nhmsg (family, scope, protocol, resvd, flags u32) with NHA_ID: a next-hop object message. */
    static byte[] nextHopObject(final int type, final int id) {
        final byte[] nha = rtattr(1, le32(id));
        final ByteBuffer message = ByteBuffer.allocate(16 + 8 + nha.length).order(ByteOrder.nativeOrder());
        message.putInt(message.capacity())
                .putShort((short) type)
                .putShort((short) 0)
                .putInt(1)
                .putInt(0);
        message.put(new byte[] {2, 0, 0, 0, 0, 0, 0, 0}).put(nha);
        return message.array();
    }

    /** An FPM frame: version, type, big-endian total length, then {@code payload}. */
    static byte[] fpm(final int version, final int type, final byte[] payload) {
        final ByteBuffer frame = ByteBuffer.allocate(4 + payload.length).order(ByteOrder.BIG_ENDIAN);
        frame.put((byte) version)
                .put((byte) type)
                .putShort((short) (4 + payload.length))
                .put(payload);
        return frame.array();
    }

    static byte[] fpm(final byte[] payload) {
        return fpm(1, 1, payload);
    }

    static byte[] hex(final String hex) {
        return HexFormat.of().parseHex(hex);
    }

    private static byte[] rtattr(final int attributeType, final byte[] value) {
        final int length = 4 + value.length;
        final ByteBuffer attribute = ByteBuffer.allocate((length + 3) & ~3).order(ByteOrder.nativeOrder());
        attribute.putShort((short) length).putShort((short) attributeType).put(value);
        return attribute.array();
    }

    private static byte[] le32(final long value) {
        return ByteBuffer.allocate(4)
                .order(ByteOrder.nativeOrder())
                .putInt((int) value)
                .array();
    }
}
