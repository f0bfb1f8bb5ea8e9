/** The CPU port: {@link io.asicemu.pipeline.cpu.CpuPort} carries punted packets up (PacketIn) and controller
 * packets down (PacketOut), with {@link io.asicemu.pipeline.cpu.PacketInHandler} as the receiving callback. */
package io.asicemu.pipeline.cpu;
