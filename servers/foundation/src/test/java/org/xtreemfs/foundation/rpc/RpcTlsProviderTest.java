package org.xtreemfs.foundation.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;

/**
 * The RPC ports' TLS runs on BoringSSL on the platform we ship for (linux-x86_64): the JDK's TLS is a fallback
 * that costs most of the throughput under a C1-only JIT (the MRC's) (see servers/foundation/README.md, "TLS"), so
 * losing the native library silently would be a large regression.
 */
class RpcTlsProviderTest {
    @Test
    void boringSslLoadsOnThisPlatform() {
        assertEquals(SslProvider.OPENSSL, RpcTls.provider(),
                () -> "netty-tcnative did not load: " + OpenSsl.unavailabilityCause());
    }
}
