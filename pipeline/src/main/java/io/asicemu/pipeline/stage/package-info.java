/** The pipeline's stages: {@link io.asicemu.pipeline.stage.IngressStage} (parse, port/VLAN, ACL, QoS, L2/L3 lookup)
 * and {@link io.asicemu.pipeline.stage.EgressStage} (rewrite into the packet buffer, traffic-manager admission). */
package io.asicemu.pipeline.stage;
