package io.asicemu.flowlet.hash;

/**
 * A packet field a hash object may include, named as SONiC's {@code SWITCH_HASH} hash-field values (sonic-hash.yang),
 * plus SAI's native RDMA fields {@code RDMA_BTH_DEST_QP} (0x23) and {@code RDMA_BTH_OPCODE} (0x22).
 * <p>
 * Each field has a bit in a {@code long} field mask ({@link #mask()}) so that a hash object is a mask, not a list,
 * on the data path. Immutable; safe on any thread.
 */
public enum HashField {
    IN_PORT(false),
    DST_MAC(false),
    SRC_MAC(false),
    ETHERTYPE(false),
    VLAN_ID(false),
    IP_PROTOCOL(false),
    DST_IP(false),
    SRC_IP(false),
    L4_DST_PORT(false),
    L4_SRC_PORT(false),
    INNER_DST_MAC(false),
    INNER_SRC_MAC(false),
    INNER_ETHERTYPE(false),
    INNER_IP_PROTOCOL(false),
    INNER_DST_IP(false),
    INNER_DST_IPV4(false),
    INNER_DST_IPV6(false),
    INNER_SRC_IP(false),
    INNER_SRC_IPV4(false),
    INNER_SRC_IPV6(false),
    INNER_L4_DST_PORT(false),
    INNER_L4_SRC_PORT(false),
    IPV6_FLOW_LABEL(false),
    RDMA_BTH_DEST_QP(true),
    RDMA_BTH_OPCODE(true);

    private static final HashField[] VALUES = values();

    private final boolean rdma;

    HashField(final boolean rdma) {
        this.rdma = rdma;
    }

    /**
     * @return the bit of this field in a field mask.
     */
    public long mask() {
        return 1L << ordinal();
    }

    /**
     * @return true for the RDMA BTH fields, which only SAI's RDMA hash objects carry (SONiC's YANG has none).
     */
    public boolean rdma() {
        return rdma;
    }

    /**
     * Look a field up by its SONiC/SAI name.
     *
     * @param name such as {@code "L4_SRC_PORT"} (exact, upper case).
     * @return the field, or null if no field has that name.
     */
    public static HashField fromName(final String name) {
        for (final HashField field : VALUES) {
            if (field.name().equals(name)) {
                return field;
            }
        }
        return null;
    }

    /**
     * @param fields the fields of a hash object.
     * @return their mask.
     */
    public static long maskOf(final Iterable<HashField> fields) {
        long mask = 0;
        for (final HashField field : fields) {
            mask |= field.mask();
        }
        return mask;
    }

    /**
     * The classic 5-tuple: SRC_IP, DST_IP, L4_SRC_PORT, L4_DST_PORT, IP_PROTOCOL.
     *
     * @return its mask.
     */
    public static long fiveTupleMask() {
        return SRC_IP.mask() | DST_IP.mask() | L4_SRC_PORT.mask() | L4_DST_PORT.mask() | IP_PROTOCOL.mask();
    }
}
