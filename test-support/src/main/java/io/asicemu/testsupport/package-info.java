/** Test helpers shared by all modules: {@link io.asicemu.testsupport.Tshark} and {@link io.asicemu.testsupport.Scapy}
 * as packet oracles, {@link io.asicemu.testsupport.ProcessRunner} for bounded external commands. */
package io.asicemu.testsupport;
