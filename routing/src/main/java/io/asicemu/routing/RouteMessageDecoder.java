package io.asicemu.routing;

import static io.asicemu.routing.RtnetlinkDescriptor.NLMSG_HEADER_LENGTH;
import static io.asicemu.routing.RtnetlinkDescriptor.NLMSG_TYPE_OFFSET;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_DST;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_ENCAP;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_ENCAP_TYPE;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_GATEWAY;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_HEADER_LENGTH;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_MULTIPATH;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_NH_ID;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_OIF;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_PRIORITY;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_TABLE;
import static io.asicemu.routing.RtnetlinkDescriptor.RTA_VIA;
import static io.asicemu.routing.RtnetlinkDescriptor.RTMSG_LENGTH;
import static io.asicemu.routing.RtnetlinkDescriptor.RTNH_LENGTH;
import static io.asicemu.routing.RtnetlinkDescriptor.align;

import io.netty.buffer.ByteBuf;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the rtnetlink messages of one FPM frame into route replaces, withdraws and counted skips. Never throws on
 * any bytes: a message whose lengths do not add up is {@link SkipReason#MALFORMED} and ends the frame (its end cannot
 * be trusted), the frame's other messages stand. Not thread safe (the FPM server's I/O thread owns it).
 */
final class RouteMessageDecoder {
    /** What a frame's messages become, in order. */
    interface Handler {
        /** RTM_NEWROUTE of the main table. */
        void onReplace(Route route);

        /** RTM_DELROUTE of the main table. */
        void onWithdraw(RoutePrefix prefix);

        /** A message that changes no route. */
        void onSkipped(SkipReason reason);
    }

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final InterfaceNames interfaceNames;

    RouteMessageDecoder(final InterfaceNames interfaceNames) {
        this.interfaceNames = interfaceNames;
    }

    /** Decodes the readable bytes of {@code payload} (one FPM frame's netlink messages); reads without consuming. */
    void decode(final ByteBuf payload, final Handler handler) {
        int at = payload.readerIndex();
        final int end = payload.writerIndex();
        while (end - at >= NLMSG_HEADER_LENGTH) {
            final long length = u32(payload, at);
            if (length < NLMSG_HEADER_LENGTH || length > end - at) {
                handler.onSkipped(SkipReason.MALFORMED);
                return;
            }
            final int type = u16(payload, at + NLMSG_TYPE_OFFSET);
            decodeMessage(payload, type, at + NLMSG_HEADER_LENGTH, at + (int) length, handler);
            at += align((int) length);
        }
        if (at < end) {
            handler.onSkipped(SkipReason.MALFORMED);
        }
    }

    private void decodeMessage(final ByteBuf buf, final int type, final int from, final int to, final Handler handler) {
        switch (type) {
            case RtnetlinkDescriptor.RTM_NEWROUTE, RtnetlinkDescriptor.RTM_DELROUTE ->
                decodeRoute(buf, type == RtnetlinkDescriptor.RTM_NEWROUTE, from, to, handler);
            case RtnetlinkDescriptor.RTM_NEWNEXTHOP, RtnetlinkDescriptor.RTM_DELNEXTHOP ->
                handler.onSkipped(SkipReason.NEXTHOP_OBJECT);
            default -> handler.onSkipped(SkipReason.UNKNOWN_MESSAGE);
        }
    }

    /** One route message's fields, filled while its attributes are read. */
    private static final class Fields {
        byte[] destination;
        byte[] gateway;
        int outputInterface;
        long priority;
        long table;
        long nextHopId;
        boolean unsupportedNextHop;
        List<PendingNextHop> multipath;
    }

    private record PendingNextHop(byte[] gateway, int ifindex, int weight) {}

    private void decodeRoute(
            final ByteBuf buf, final boolean add, final int from, final int to, final Handler handler) {
        if (to - from < RTMSG_LENGTH) {
            handler.onSkipped(SkipReason.MALFORMED);
            return;
        }
        final AddressFamily family =
                AddressFamily.ofNumber(buf.getUnsignedByte(from + RtnetlinkDescriptor.RTMSG_FAMILY_OFFSET));
        if (family == null) {
            handler.onSkipped(SkipReason.UNSUPPORTED_FAMILY);
            return;
        }
        final int prefixLength = buf.getUnsignedByte(from + RtnetlinkDescriptor.RTMSG_DST_LEN_OFFSET);
        final Fields fields = new Fields();
        fields.table = buf.getUnsignedByte(from + RtnetlinkDescriptor.RTMSG_TABLE_OFFSET);
        final int protocol = buf.getUnsignedByte(from + RtnetlinkDescriptor.RTMSG_PROTOCOL_OFFSET);
        final int routeType = buf.getUnsignedByte(from + RtnetlinkDescriptor.RTMSG_TYPE_OFFSET);
        if (prefixLength > family.addressBytes() * 8 || !readAttributes(buf, from + RTMSG_LENGTH, to, family, fields)) {
            handler.onSkipped(SkipReason.MALFORMED);
            return;
        }
        if (fields.table != RtnetlinkDescriptor.RT_TABLE_MAIN && fields.table != RtnetlinkDescriptor.RT_TABLE_UNSPEC) {
            handler.onSkipped(SkipReason.OTHER_TABLE);
            return;
        }
        if (fields.destination == null && prefixLength > 0) {
            handler.onSkipped(SkipReason.MALFORMED);
            return;
        }
        final RoutePrefix prefix = new RoutePrefix(
                family,
                fields.destination == null ? new byte[family.addressBytes()] : fields.destination,
                prefixLength);
        if (!add) {
            handler.onWithdraw(prefix);
            return;
        }
        final Route.Type type = switch (routeType) {
            case RtnetlinkDescriptor.RTN_UNICAST -> Route.Type.UNICAST;
            case RtnetlinkDescriptor.RTN_BLACKHOLE -> Route.Type.BLACKHOLE;
            case RtnetlinkDescriptor.RTN_UNREACHABLE -> Route.Type.UNREACHABLE;
            case RtnetlinkDescriptor.RTN_PROHIBIT -> Route.Type.PROHIBIT;
            default -> null;
        };
        if (type == null) {
            handler.onSkipped(SkipReason.UNSUPPORTED_ROUTE_TYPE);
            return;
        }
        if (type != Route.Type.UNICAST) {
            handler.onReplace(new Route(prefix, type, protocol, fields.priority, List.of()));
            return;
        }
        if (fields.unsupportedNextHop) {
            handler.onSkipped(SkipReason.UNSUPPORTED_NEXTHOP);
            return;
        }
        final List<NextHop> nextHops = nextHops(fields);
        if (nextHops.isEmpty()) {
            handler.onSkipped(fields.nextHopId != 0 ? SkipReason.UNRESOLVED_NEXTHOP_GROUP : SkipReason.NO_NEXTHOP);
            return;
        }
        handler.onReplace(new Route(prefix, type, protocol, fields.priority, nextHops));
    }

    private List<NextHop> nextHops(final Fields fields) {
        if (fields.multipath != null) {
            final List<NextHop> hops = new ArrayList<>(fields.multipath.size());
            for (final PendingNextHop hop : fields.multipath) {
                hops.add(new NextHop(address(hop.gateway()), name(hop.ifindex()), hop.weight()));
            }
            return hops;
        }
        if (fields.gateway == null && fields.outputInterface == 0) {
            return List.of();
        }
        return List.of(new NextHop(address(fields.gateway), name(fields.outputInterface), 1));
    }

    /** Reads the route's attributes into {@code fields}; false when their lengths do not add up. */
    private static boolean readAttributes(
            final ByteBuf buf, final int from, final int to, final AddressFamily family, final Fields fields) {
        int at = from;
        while (to - at >= RTA_HEADER_LENGTH) {
            final int length = u16(buf, at);
            final int type = u16(buf, at + 2) & 0x3fff;
            if (length < RTA_HEADER_LENGTH || length > to - at) {
                return false;
            }
            final int data = at + RTA_HEADER_LENGTH;
            if (!readAttribute(buf, type, data, length - RTA_HEADER_LENGTH, family, fields)) {
                return false;
            }
            at += Math.min(align(length), to - at);
        }
        return at == to;
    }

    /** Reads one attribute; false when its length is wrong for its type. */
    private static boolean readAttribute(
            final ByteBuf buf,
            final int type,
            final int data,
            final int dataLength,
            final AddressFamily family,
            final Fields fields) {
        switch (type) {
            case RTA_DST -> fields.destination = bytes(buf, data, dataLength, family);
            case RTA_GATEWAY -> fields.gateway = bytes(buf, data, dataLength, family);
            case RTA_MULTIPATH -> {
                return readMultipath(buf, data, data + dataLength, family, fields);
            }
            case RTA_VIA, RTA_ENCAP, RTA_ENCAP_TYPE -> fields.unsupportedNextHop = true;
            case RTA_OIF, RTA_PRIORITY, RTA_TABLE, RTA_NH_ID -> {
                if (dataLength != 4) {
                    return false;
                }
                final long value = u32(buf, data);
                switch (type) {
                    case RTA_OIF -> fields.outputInterface = (int) value;
                    case RTA_PRIORITY -> fields.priority = value;
                    case RTA_TABLE -> fields.table = value;
                    default -> fields.nextHopId = value;
                }
            }
            default -> {
                return true;
            }
        }
        return switch (type) {
            case RTA_DST -> fields.destination != null;
            case RTA_GATEWAY -> fields.gateway != null;
            default -> true;
        };
    }

    private static boolean readMultipath(
            final ByteBuf buf, final int from, final int to, final AddressFamily family, final Fields fields) {
        final List<PendingNextHop> hops = new ArrayList<>();
        int at = from;
        while (to - at >= RTNH_LENGTH) {
            final int length = u16(buf, at);
            if (length < RTNH_LENGTH || length > to - at) {
                return false;
            }
            final int weight = buf.getUnsignedByte(at + 3) + 1;
            final int ifindex = (int) u32(buf, at + 4);
            byte[] gateway = null;
            int attribute = at + RTNH_LENGTH;
            final int hopEnd = at + length;
            while (hopEnd - attribute >= RTA_HEADER_LENGTH) {
                final int attributeLength = u16(buf, attribute);
                final int attributeType = u16(buf, attribute + 2) & 0x3fff;
                if (attributeLength < RTA_HEADER_LENGTH || attributeLength > hopEnd - attribute) {
                    return false;
                }
                if (attributeType == RTA_GATEWAY) {
                    gateway = bytes(buf, attribute + RTA_HEADER_LENGTH, attributeLength - RTA_HEADER_LENGTH, family);
                    if (gateway == null) {
                        return false;
                    }
                } else if (attributeType == RTA_VIA || attributeType == RTA_ENCAP || attributeType == RTA_ENCAP_TYPE) {
                    fields.unsupportedNextHop = true;
                }
                attribute += Math.min(align(attributeLength), hopEnd - attribute);
            }
            if (attribute != hopEnd) {
                return false;
            }
            hops.add(new PendingNextHop(gateway, ifindex, weight));
            at += Math.min(align(length), to - at);
        }
        if (at != to) {
            return false;
        }
        fields.multipath = hops;
        return true;
    }

    /** @return the address bytes, or null when the attribute is not one address of {@code family}. */
    private static byte[] bytes(final ByteBuf buf, final int at, final int length, final AddressFamily family) {
        if (length != family.addressBytes()) {
            return null;
        }
        final byte[] bytes = new byte[length];
        buf.getBytes(at, bytes);
        return bytes;
    }

    private String name(final int ifindex) {
        final String name = ifindex <= 0 ? null : interfaceNames.nameOf(ifindex);
        return name == null || name.isEmpty() ? NextHop.UNKNOWN_INTERFACE : name;
    }

    private static InetAddress address(final byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            // Inet6Address keeps an IPv4-mapped gateway of an IPv6 route an IPv6 address
            return bytes.length == 16 ? Inet6Address.getByAddress(null, bytes, -1) : InetAddress.getByAddress(bytes);
        } catch (final UnknownHostException e) {
            throw new IllegalStateException("an address of 4 or 16 bytes is always accepted", e);
        }
    }

    private static int u16(final ByteBuf buf, final int at) {
        return LITTLE_ENDIAN ? buf.getUnsignedShortLE(at) : buf.getUnsignedShort(at);
    }

    private static long u32(final ByteBuf buf, final int at) {
        return LITTLE_ENDIAN ? buf.getUnsignedIntLE(at) : buf.getUnsignedInt(at);
    }
}
