/**
 * ECMP/WCMP member selection with RoCEv2-aware hashing and flowlet adaptive routing; the pipeline calls
 * {@link io.asicemu.flowlet.LoadBalanceGroup#select} per packet, built from
 * {@link io.asicemu.flowlet.config.FlowletConfigParser#parse}.
 */
package io.asicemu.flowlet;
