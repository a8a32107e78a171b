package org.xtreemfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.foundation.rpc.RpcTransportException;
import org.xtreemfs.interfaces.rpc.ErrorType;

class ClientOptionsTest {
    // Defaults are valid and carry the current user's name.
    @Test
    void defaultsAreValid() {
        ClientOptions options = ClientOptions.defaults();
        assertThat(options.userCredentials().getUsername()).isNotEmpty();
        assertThat(options.retryAttemptsMax()).isPositive();
    }

    // Each invalid setting is refused with its name and value in the message.
    @Test
    void invalidSettingsNameTheSetting() {
        assertThatThrownBy(() -> ClientOptions.builder().requestTimeoutMs(0).build())
                .hasMessageContaining("requestTimeoutMs").hasMessageContaining("0");
        assertThatThrownBy(() -> ClientOptions.builder().retryAttemptsMax(-2).build())
                .hasMessageContaining("retryAttemptsMax").hasMessageContaining("-2");
        assertThatThrownBy(() -> ClientOptions.builder().retryBackoffInitialMs(500).retryBackoffMaxMs(100).build())
                .hasMessageContaining("retryBackoffMaxMs");
        assertThatThrownBy(() -> ClientOptions.builder().objectRequestsInFlightMax(5000).build())
                .hasMessageContaining("objectRequestsInFlightMax").hasMessageContaining("5000");
        assertThatThrownBy(() -> ClientOptions.builder().metadataCacheTtlMs(-1).build())
                .hasMessageContaining("metadataCacheTtlMs");
    }

    // Explicit credentials are used as given.
    @Test
    void explicitCredentials() {
        ClientOptions options = ClientOptions.builder()
                .userCredentials(ClientOptions.user("alice", 1000, 100, List.of(5, 6))).build();
        assertThat(options.userCredentials().getUid()).isEqualTo(1000);
        assertThat(options.userCredentials().getSupplementaryGidsList()).containsExactly(5, 6);
    }

    // RPC errors become exceptions with the errno, the operation and the server's message.
    @Test
    void exceptionsCarryErrnoAndOperation() {
        XtreemFSException notFound = XtreemFSException.from("getattr 'vol/a'",
                RpcException.errno(Errno.ENOENT, "no such file or directory: /a"));
        assertThat(notFound.errno()).isEqualTo(Errno.ENOENT);
        assertThat(notFound.getMessage()).isEqualTo("getattr 'vol/a': ENOENT: no such file or directory: /a");
        XtreemFSException lost = XtreemFSException.from("read", new RpcTransportException("connection closed", false));
        assertThat(lost.errno()).isEqualTo(Errno.EIO);
        assertThat(lost.errorType()).isEqualTo(ErrorType.INTERNAL);
        assertThat(lost.getMessage()).contains("transport error").contains("connection closed");
    }
}
