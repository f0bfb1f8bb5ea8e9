package io.asicemu.testsupport.netns;

/** How a lab sets the offloads of the veth pairs it creates. */
public enum Offloads {
    /** As containerlab does: TX checksum offload off on both ends (the kernel then also drops TSO/USO). */
    CONTAINERLAB,
    /** As docker-compose leaves them: kernel defaults (TX checksum, TSO and GSO on; peers see super-frames). */
    KERNEL_DEFAULT
}
