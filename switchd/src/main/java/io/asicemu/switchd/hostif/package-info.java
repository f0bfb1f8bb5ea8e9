/**
 * SONiC-style host interfaces: {@link io.asicemu.switchd.hostif.HostInterfaces#start} makes a TAP per front-panel
 * port for the switch's kernel, feeds it the punts and sends what the kernel sends out of the ports.
 */
package io.asicemu.switchd.hostif;
