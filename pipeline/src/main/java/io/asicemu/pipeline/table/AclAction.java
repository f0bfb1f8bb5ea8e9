package io.asicemu.pipeline.table;

/** What an ACL rule does with a matching packet (SONiC {@code PACKET_ACTION}, plus copy-to-CPU and mirror). */
public enum AclAction {
    /** Let it through (SONiC FORWARD). */
    FORWARD,
    /** Drop it (SONiC DROP). */
    DROP,
    /** Send it to the CPU port instead of forwarding (SONiC TRAP). */
    TRAP,
    /** Send a copy to the CPU port and forward the original (SONiC COPY). */
    COPY,
    /** Send a copy to a clone session's ports and forward the original (SAI ACL MIRROR_INGRESS). */
    MIRROR
}
