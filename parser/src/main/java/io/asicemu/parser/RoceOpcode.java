package io.asicemu.parser;

/**
 * RoCEv2 BTH opcodes and the extended headers each implies (IBTA; reference/sonic-asic-behaviour.md §4.4). The top 3
 * bits are the transport (RC 0x00, UC 0x20, RD 0x40, UD 0x60); CNP is 0x81. Stateless.
 */
public final class RoceOpcode {
    /** RC transport group. */
    public static final int RC = 0x00;
    /** UC transport group. */
    public static final int UC = 0x20;
    /** RD transport group. */
    public static final int RD = 0x40;
    /** UD transport group. */
    public static final int UD = 0x60;
    /** RC SEND First. */
    public static final int RC_SEND_FIRST = 0x00;
    /** RC SEND Middle. */
    public static final int RC_SEND_MIDDLE = 0x01;
    /** RC SEND Last. */
    public static final int RC_SEND_LAST = 0x02;
    /** RC SEND Only. */
    public static final int RC_SEND_ONLY = 0x04;
    /** RC SEND Only with immediate. */
    public static final int RC_SEND_ONLY_IMM = 0x05;
    /** RC RDMA WRITE First (RETH). */
    public static final int RC_RDMA_WRITE_FIRST = 0x06;
    /** RC RDMA WRITE Only (RETH). */
    public static final int RC_RDMA_WRITE_ONLY = 0x0A;
    /** RC RDMA READ Request (RETH). */
    public static final int RC_RDMA_READ_REQUEST = 0x0C;
    /** RC RDMA READ Response Only (AETH). */
    public static final int RC_RDMA_READ_RESPONSE_ONLY = 0x10;
    /** RC Acknowledge (AETH). */
    public static final int RC_ACK = 0x11;
    /** UD SEND Only (DETH). */
    public static final int UD_SEND_ONLY = 0x64;
    /** RoCEv2 congestion notification packet. */
    public static final int CNP = 0x81;

    /** Length of the RDMA extended transport header. */
    public static final int RETH_LENGTH = 16;
    /** Length of the ACK extended transport header. */
    public static final int AETH_LENGTH = 4;
    /** Length of the datagram extended transport header. */
    public static final int DETH_LENGTH = 8;
    /** Length of the immediate data header. */
    public static final int IMMDT_LENGTH = 4;
    /** Length of the atomic extended transport header. */
    public static final int ATOMIC_ETH_LENGTH = 28;
    /** Length of the atomic acknowledge extended transport header. */
    public static final int ATOMIC_ACK_ETH_LENGTH = 8;
    /** Length of the invalidate extended transport header. */
    public static final int IETH_LENGTH = 4;

    private RoceOpcode() {}

    /** Whether an RC/UC opcode carries a RETH right after the BTH. */
    public static boolean hasReth(final int opcode) {
        final int transport = opcode & 0xE0;
        if (transport != RC && transport != UC) {
            return false;
        }
        final int op = opcode & 0x1F;
        return op == 0x06 || op == 0x0A || op == 0x0B || (transport == RC && op == 0x0C);
    }

    /** Whether an RC opcode carries an AETH right after the BTH. */
    public static boolean hasAeth(final int opcode) {
        if ((opcode & 0xE0) != RC) {
            return false;
        }
        final int op = opcode & 0x1F;
        return op == 0x0D || op == 0x0F || op == 0x10 || op == 0x11 || op == 0x12;
    }

    /** Whether a UD opcode carries a DETH right after the BTH. */
    public static boolean hasDeth(final int opcode) {
        return opcode == 0x64 || opcode == 0x65;
    }

    /**
     * Bytes of extended headers after the BTH (RETH, AETH, DETH, ImmDt, AtomicETH, AtomicAckETH, IETH) for RC, UC and
     * UD opcodes, 16 for a CNP's reserved body; 0 for RD and unknown opcodes (RD is not walked).
     */
    public static int extendedHeadersLength(final int opcode) {
        if (opcode == CNP) {
            return BthFlyweight.CNP_BODY_LENGTH;
        }
        final int transport = opcode & 0xE0;
        final int op = opcode & 0x1F;
        if (transport == UD) {
            return opcode == 0x64 ? DETH_LENGTH : opcode == 0x65 ? DETH_LENGTH + IMMDT_LENGTH : 0;
        }
        if (transport != RC && (transport != UC || op >= 0x0C)) {
            return 0;
        }
        return switch (op) {
            case 0x03, 0x05, 0x09 -> IMMDT_LENGTH;
            case 0x06, 0x0A, 0x0C -> RETH_LENGTH;
            case 0x0B -> RETH_LENGTH + IMMDT_LENGTH;
            case 0x0D, 0x0F, 0x10, 0x11 -> AETH_LENGTH;
            case 0x12 -> AETH_LENGTH + ATOMIC_ACK_ETH_LENGTH;
            case 0x13, 0x14 -> ATOMIC_ETH_LENGTH;
            case 0x16, 0x17 -> IETH_LENGTH;
            default -> 0;
        };
    }
}
