package io.asicemu.testsupport.netns;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Network tests' hygiene: before the first test, sweeps namespaces and links that killed runs left behind; after
 * each test, closes every lab the test left open (deleting its namespaces, links and processes) even if it failed.
 */
public final class NetnsLabExtension implements BeforeAllCallback, AfterEachCallback {
    @Override
    public void beforeAll(final ExtensionContext context) {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("netns tests need root (CI runs them as root); exclude the tag otherwise");
        }
        NetnsLab.sweepStale();
    }

    @Override
    public void afterEach(final ExtensionContext context) {
        NetnsLab.closeAll();
    }
}
