/**
 * Hash keys and the hash engine (SONiC SWITCH_HASH fields plus SAI RDMA BTH fields; CRC, XOR, RANDOM; seed and
 * offset): {@link io.asicemu.flowlet.hash.HashKey}, {@link io.asicemu.flowlet.hash.HashEngine}.
 */
package io.asicemu.flowlet.hash;
