package io.asicemu.flowlet.config;

import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.flowlet.hash.HashField;
import java.util.List;

/**
 * Typed {@code SWITCH_HASH|GLOBAL}: SONiC's fields ({@code ecmp_hash}, {@code ecmp_hash_algorithm},
 * {@code lag_hash}, {@code lag_hash_algorithm}) plus our extensions: the RDMA hash objects ({@code ecmp_hash_rdma},
 * {@code lag_hash_rdma}, which may name RDMA_BTH_DEST_QP / RDMA_BTH_OPCODE; SONiC's YANG has no RDMA fields),
 * seeds and offsets (SONiC puts them in APPL_DB SWITCH_TABLE; defaults come from DEVICE_METADATA's type), the
 * switch-wide load-balance mode ({@code ecmp_lb_mode}) and the PRNG seed ({@code random_seed}). Immutable.
 *
 * @param ecmpHash          fields of the default ECMP hash object.
 * @param ecmpHashAlgorithm ECMP algorithm.
 * @param lagHash           fields of the default LAG hash object.
 * @param lagHashAlgorithm  LAG algorithm.
 * @param ecmpHashRdma      fields of the ECMP RDMA hash object (RoCEv2 packets).
 * @param lagHashRdma       fields of the LAG RDMA hash object.
 * @param ecmpHashSeed      ECMP seed (u32 as an int).
 * @param ecmpHashOffset    ECMP offset, 0..255.
 * @param lagHashSeed       LAG seed.
 * @param lagHashOffset     LAG offset.
 * @param ecmpLbMode        switch-wide default mode of next-hop groups.
 * @param randomSeed        seed of the RANDOM algorithm's PRNG.
 */
public record SwitchHashConfig(
        List<HashField> ecmpHash,
        HashAlgorithm ecmpHashAlgorithm,
        List<HashField> lagHash,
        HashAlgorithm lagHashAlgorithm,
        List<HashField> ecmpHashRdma,
        List<HashField> lagHashRdma,
        int ecmpHashSeed,
        int ecmpHashOffset,
        int lagHashSeed,
        int lagHashOffset,
        LoadBalanceMode ecmpLbMode,
        long randomSeed) {
    /** Default hash object when {@code ecmp_hash}/{@code lag_hash} are absent: the 5-tuple. */
    public static final List<HashField> FIVE_TUPLE = List.of(
            HashField.SRC_IP, HashField.DST_IP, HashField.L4_SRC_PORT, HashField.L4_DST_PORT, HashField.IP_PROTOCOL);

    /**
     * Copy lists immutably.
     */
    public SwitchHashConfig {
        ecmpHash = List.copyOf(ecmpHash);
        lagHash = List.copyOf(lagHash);
        ecmpHashRdma = List.copyOf(ecmpHashRdma);
        lagHashRdma = List.copyOf(lagHashRdma);
    }

    /**
     * @return a new ECMP hash engine (one per data-plane thread).
     */
    public HashEngine newEcmpHashEngine() {
        return new HashEngine(
                ecmpHashAlgorithm,
                HashField.maskOf(ecmpHash),
                HashField.maskOf(ecmpHashRdma),
                ecmpHashSeed,
                ecmpHashOffset,
                randomSeed);
    }

    /**
     * @return a new LAG hash engine.
     */
    public HashEngine newLagHashEngine() {
        return new HashEngine(
                lagHashAlgorithm,
                HashField.maskOf(lagHash),
                HashField.maskOf(lagHashRdma),
                lagHashSeed,
                lagHashOffset,
                ~randomSeed);
    }
}
