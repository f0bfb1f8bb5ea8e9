/** The one CONFIG_DB error type and the numeric bounds every config parser checks against. */
package io.asicemu.config;
