/**
 * ECMP/WCMP member tables with optional resilient hashing ({@link io.asicemu.flowlet.ecmp.EcmpMembers}) and the
 * load-balance modes ({@link io.asicemu.flowlet.ecmp.LoadBalanceMode}).
 */
package io.asicemu.flowlet.ecmp;
