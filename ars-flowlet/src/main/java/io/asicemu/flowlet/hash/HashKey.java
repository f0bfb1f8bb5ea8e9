package io.asicemu.flowlet.hash;

/**
 * The fields a hash may read, as primitives the pipeline copies out of a parsed packet: a reusable, mutable key
 * (one per data-plane thread, refilled per packet; never one object per packet).
 * <p>
 * Addresses are two longs each so IPv4 and IPv6 share the layout: IPv4 sits in the low 32 bits of the {@code Lo}
 * word with {@code Hi} 0 and {@link #ipv6()} false. Setters are fluent and return this key.
 * <p>
 * Not thread safe: owned by the data-plane thread.
 */
public final class HashKey {
    /** UDP destination port of RoCEv2. */
    public static final int ROCE_V2_UDP_PORT = 4791;

    private int inPort;
    private long dstMac;
    private long srcMac;
    private int etherType;
    private int vlanId;
    private boolean ipv6;
    private long srcIpHi;
    private long srcIpLo;
    private long dstIpHi;
    private long dstIpLo;
    private int ipProtocol;
    private int l4SrcPort;
    private int l4DstPort;
    private int ipv6FlowLabel;
    private boolean inner;
    private long innerDstMac;
    private long innerSrcMac;
    private int innerEtherType;
    private boolean innerIpv6;
    private long innerSrcIpHi;
    private long innerSrcIpLo;
    private long innerDstIpHi;
    private long innerDstIpLo;
    private int innerIpProtocol;
    private int innerL4SrcPort;
    private int innerL4DstPort;
    private boolean roce;
    private int bthDestQp;
    private int bthOpcode;

    /**
     * Reset every field to 0/false before the next packet is filled in.
     *
     * @return this key.
     */
    public HashKey clear() {
        inPort = 0;
        dstMac = 0;
        srcMac = 0;
        etherType = 0;
        vlanId = 0;
        ipv6 = false;
        srcIpHi = 0;
        srcIpLo = 0;
        dstIpHi = 0;
        dstIpLo = 0;
        ipProtocol = 0;
        l4SrcPort = 0;
        l4DstPort = 0;
        ipv6FlowLabel = 0;
        inner = false;
        innerDstMac = 0;
        innerSrcMac = 0;
        innerEtherType = 0;
        innerIpv6 = false;
        innerSrcIpHi = 0;
        innerSrcIpLo = 0;
        innerDstIpHi = 0;
        innerDstIpLo = 0;
        innerIpProtocol = 0;
        innerL4SrcPort = 0;
        innerL4DstPort = 0;
        roce = false;
        bthDestQp = 0;
        bthOpcode = 0;
        return this;
    }

    /**
     * Copy every field of another key.
     *
     * @param other source.
     * @return this key.
     */
    public HashKey copyFrom(final HashKey other) {
        inPort = other.inPort;
        dstMac = other.dstMac;
        srcMac = other.srcMac;
        etherType = other.etherType;
        vlanId = other.vlanId;
        ipv6 = other.ipv6;
        srcIpHi = other.srcIpHi;
        srcIpLo = other.srcIpLo;
        dstIpHi = other.dstIpHi;
        dstIpLo = other.dstIpLo;
        ipProtocol = other.ipProtocol;
        l4SrcPort = other.l4SrcPort;
        l4DstPort = other.l4DstPort;
        ipv6FlowLabel = other.ipv6FlowLabel;
        inner = other.inner;
        innerDstMac = other.innerDstMac;
        innerSrcMac = other.innerSrcMac;
        innerEtherType = other.innerEtherType;
        innerIpv6 = other.innerIpv6;
        innerSrcIpHi = other.innerSrcIpHi;
        innerSrcIpLo = other.innerSrcIpLo;
        innerDstIpHi = other.innerDstIpHi;
        innerDstIpLo = other.innerDstIpLo;
        innerIpProtocol = other.innerIpProtocol;
        innerL4SrcPort = other.innerL4SrcPort;
        innerL4DstPort = other.innerL4DstPort;
        roce = other.roce;
        bthDestQp = other.bthDestQp;
        bthOpcode = other.bthOpcode;
        return this;
    }

    /**
     * Set an IPv4 source address (clears the IPv6 flag).
     *
     * @param address IPv4 address as a big-endian int.
     * @return this key.
     */
    public HashKey srcIpv4(final int address) {
        ipv6 = false;
        srcIpHi = 0;
        srcIpLo = address & 0xFFFF_FFFFL;
        return this;
    }

    /**
     * Set an IPv4 destination address (clears the IPv6 flag).
     *
     * @param address IPv4 address as a big-endian int.
     * @return this key.
     */
    public HashKey dstIpv4(final int address) {
        ipv6 = false;
        dstIpHi = 0;
        dstIpLo = address & 0xFFFF_FFFFL;
        return this;
    }

    /**
     * Set an IPv6 source address (sets the IPv6 flag).
     *
     * @param hi upper 64 bits.
     * @param lo lower 64 bits.
     * @return this key.
     */
    public HashKey srcIpv6(final long hi, final long lo) {
        ipv6 = true;
        srcIpHi = hi;
        srcIpLo = lo;
        return this;
    }

    /**
     * Set an IPv6 destination address (sets the IPv6 flag).
     *
     * @param hi upper 64 bits.
     * @param lo lower 64 bits.
     * @return this key.
     */
    public HashKey dstIpv6(final long hi, final long lo) {
        ipv6 = true;
        dstIpHi = hi;
        dstIpLo = lo;
        return this;
    }

    /**
     * Fill the IPv4 5-tuple in one call.
     *
     * @param srcIp    source IPv4 address.
     * @param dstIp    destination IPv4 address.
     * @param protocol IP protocol.
     * @param srcPort  L4 source port.
     * @param dstPort  L4 destination port.
     * @return this key.
     */
    public HashKey ipv4FiveTuple(
            final int srcIp, final int dstIp, final int protocol, final int srcPort, final int dstPort) {
        srcIpv4(srcIp);
        dstIpv4(dstIp);
        ipProtocol = protocol;
        l4SrcPort = srcPort;
        l4DstPort = dstPort;
        return this;
    }

    /**
     * @return ingress port index.
     */
    public int inPort() {
        return inPort;
    }

    /**
     * @param value ingress port index.
     * @return this key.
     */
    public HashKey inPort(final int value) {
        inPort = value;
        return this;
    }

    /**
     * @return destination MAC in the low 48 bits.
     */
    public long dstMac() {
        return dstMac;
    }

    /**
     * @param value destination MAC in the low 48 bits.
     * @return this key.
     */
    public HashKey dstMac(final long value) {
        dstMac = value;
        return this;
    }

    /**
     * @return source MAC in the low 48 bits.
     */
    public long srcMac() {
        return srcMac;
    }

    /**
     * @param value source MAC in the low 48 bits.
     * @return this key.
     */
    public HashKey srcMac(final long value) {
        srcMac = value;
        return this;
    }

    /**
     * @return EtherType of the outer frame (after VLAN tags).
     */
    public int etherType() {
        return etherType;
    }

    /**
     * @param value EtherType of the outer frame (after VLAN tags).
     * @return this key.
     */
    public HashKey etherType(final int value) {
        etherType = value;
        return this;
    }

    /**
     * @return VLAN id (12 bits), 0 when untagged.
     */
    public int vlanId() {
        return vlanId;
    }

    /**
     * @param value VLAN id (12 bits), 0 when untagged.
     * @return this key.
     */
    public HashKey vlanId(final int value) {
        vlanId = value;
        return this;
    }

    /**
     * @return true when the outer IP header is IPv6 (addresses use all 128 bits).
     */
    public boolean ipv6() {
        return ipv6;
    }

    /**
     * @param value true when the outer IP header is IPv6 (addresses use all 128 bits).
     * @return this key.
     */
    public HashKey ipv6(final boolean value) {
        ipv6 = value;
        return this;
    }

    /**
     * @return upper 64 bits of the source IPv6 address, 0 for IPv4.
     */
    public long srcIpHi() {
        return srcIpHi;
    }

    /**
     * @param value upper 64 bits of the source IPv6 address, 0 for IPv4.
     * @return this key.
     */
    public HashKey srcIpHi(final long value) {
        srcIpHi = value;
        return this;
    }

    /**
     * @return lower 64 bits of the source IPv6 address, or the IPv4 address in the low 32 bits.
     */
    public long srcIpLo() {
        return srcIpLo;
    }

    /**
     * @param value lower 64 bits of the source IPv6 address, or the IPv4 address in the low 32 bits.
     * @return this key.
     */
    public HashKey srcIpLo(final long value) {
        srcIpLo = value;
        return this;
    }

    /**
     * @return upper 64 bits of the destination IPv6 address, 0 for IPv4.
     */
    public long dstIpHi() {
        return dstIpHi;
    }

    /**
     * @param value upper 64 bits of the destination IPv6 address, 0 for IPv4.
     * @return this key.
     */
    public HashKey dstIpHi(final long value) {
        dstIpHi = value;
        return this;
    }

    /**
     * @return lower 64 bits of the destination IPv6 address, or the IPv4 address in the low 32 bits.
     */
    public long dstIpLo() {
        return dstIpLo;
    }

    /**
     * @param value lower 64 bits of the destination IPv6 address, or the IPv4 address in the low 32 bits.
     * @return this key.
     */
    public HashKey dstIpLo(final long value) {
        dstIpLo = value;
        return this;
    }

    /**
     * @return IPv4 protocol or IPv6 next header.
     */
    public int ipProtocol() {
        return ipProtocol;
    }

    /**
     * @param value IPv4 protocol or IPv6 next header.
     * @return this key.
     */
    public HashKey ipProtocol(final int value) {
        ipProtocol = value;
        return this;
    }

    /**
     * @return TCP/UDP source port.
     */
    public int l4SrcPort() {
        return l4SrcPort;
    }

    /**
     * @param value TCP/UDP source port.
     * @return this key.
     */
    public HashKey l4SrcPort(final int value) {
        l4SrcPort = value;
        return this;
    }

    /**
     * @return TCP/UDP destination port.
     */
    public int l4DstPort() {
        return l4DstPort;
    }

    /**
     * @param value TCP/UDP destination port.
     * @return this key.
     */
    public HashKey l4DstPort(final int value) {
        l4DstPort = value;
        return this;
    }

    /**
     * @return IPv6 flow label (20 bits).
     */
    public int ipv6FlowLabel() {
        return ipv6FlowLabel;
    }

    /**
     * @param value IPv6 flow label (20 bits).
     * @return this key.
     */
    public HashKey ipv6FlowLabel(final int value) {
        ipv6FlowLabel = value;
        return this;
    }

    /**
     * @return true when an inner (tunnelled) header was parsed; INNER_* fields are read only then.
     */
    public boolean inner() {
        return inner;
    }

    /**
     * @param value true when an inner (tunnelled) header was parsed; INNER_* fields are read only then.
     * @return this key.
     */
    public HashKey inner(final boolean value) {
        inner = value;
        return this;
    }

    /**
     * @return inner destination MAC.
     */
    public long innerDstMac() {
        return innerDstMac;
    }

    /**
     * @param value inner destination MAC.
     * @return this key.
     */
    public HashKey innerDstMac(final long value) {
        innerDstMac = value;
        return this;
    }

    /**
     * @return inner source MAC.
     */
    public long innerSrcMac() {
        return innerSrcMac;
    }

    /**
     * @param value inner source MAC.
     * @return this key.
     */
    public HashKey innerSrcMac(final long value) {
        innerSrcMac = value;
        return this;
    }

    /**
     * @return inner EtherType.
     */
    public int innerEtherType() {
        return innerEtherType;
    }

    /**
     * @param value inner EtherType.
     * @return this key.
     */
    public HashKey innerEtherType(final int value) {
        innerEtherType = value;
        return this;
    }

    /**
     * @return true when the inner IP header is IPv6.
     */
    public boolean innerIpv6() {
        return innerIpv6;
    }

    /**
     * @param value true when the inner IP header is IPv6.
     * @return this key.
     */
    public HashKey innerIpv6(final boolean value) {
        innerIpv6 = value;
        return this;
    }

    /**
     * @return upper 64 bits of the inner source IPv6 address.
     */
    public long innerSrcIpHi() {
        return innerSrcIpHi;
    }

    /**
     * @param value upper 64 bits of the inner source IPv6 address.
     * @return this key.
     */
    public HashKey innerSrcIpHi(final long value) {
        innerSrcIpHi = value;
        return this;
    }

    /**
     * @return lower 64 bits of the inner source address (IPv4 in the low 32 bits).
     */
    public long innerSrcIpLo() {
        return innerSrcIpLo;
    }

    /**
     * @param value lower 64 bits of the inner source address (IPv4 in the low 32 bits).
     * @return this key.
     */
    public HashKey innerSrcIpLo(final long value) {
        innerSrcIpLo = value;
        return this;
    }

    /**
     * @return upper 64 bits of the inner destination IPv6 address.
     */
    public long innerDstIpHi() {
        return innerDstIpHi;
    }

    /**
     * @param value upper 64 bits of the inner destination IPv6 address.
     * @return this key.
     */
    public HashKey innerDstIpHi(final long value) {
        innerDstIpHi = value;
        return this;
    }

    /**
     * @return lower 64 bits of the inner destination address (IPv4 in the low 32 bits).
     */
    public long innerDstIpLo() {
        return innerDstIpLo;
    }

    /**
     * @param value lower 64 bits of the inner destination address (IPv4 in the low 32 bits).
     * @return this key.
     */
    public HashKey innerDstIpLo(final long value) {
        innerDstIpLo = value;
        return this;
    }

    /**
     * @return inner IP protocol.
     */
    public int innerIpProtocol() {
        return innerIpProtocol;
    }

    /**
     * @param value inner IP protocol.
     * @return this key.
     */
    public HashKey innerIpProtocol(final int value) {
        innerIpProtocol = value;
        return this;
    }

    /**
     * @return inner L4 source port.
     */
    public int innerL4SrcPort() {
        return innerL4SrcPort;
    }

    /**
     * @param value inner L4 source port.
     * @return this key.
     */
    public HashKey innerL4SrcPort(final int value) {
        innerL4SrcPort = value;
        return this;
    }

    /**
     * @return inner L4 destination port.
     */
    public int innerL4DstPort() {
        return innerL4DstPort;
    }

    /**
     * @param value inner L4 destination port.
     * @return this key.
     */
    public HashKey innerL4DstPort(final int value) {
        innerL4DstPort = value;
        return this;
    }

    /**
     * @return true for RoCEv2 (UDP destination port 4791 with a parsed BTH): selects the RDMA hash object.
     */
    public boolean roce() {
        return roce;
    }

    /**
     * @param value true for RoCEv2 (UDP destination port 4791 with a parsed BTH): selects the RDMA hash object.
     * @return this key.
     */
    public HashKey roce(final boolean value) {
        roce = value;
        return this;
    }

    /**
     * @return BTH destination QP (24 bits, BTH bytes 5-7).
     */
    public int bthDestQp() {
        return bthDestQp;
    }

    /**
     * @param value BTH destination QP (24 bits, BTH bytes 5-7).
     * @return this key.
     */
    public HashKey bthDestQp(final int value) {
        bthDestQp = value;
        return this;
    }

    /**
     * @return BTH opcode (BTH byte 0).
     */
    public int bthOpcode() {
        return bthOpcode;
    }

    /**
     * @param value BTH opcode (BTH byte 0).
     * @return this key.
     */
    public HashKey bthOpcode(final int value) {
        bthOpcode = value;
        return this;
    }
}
