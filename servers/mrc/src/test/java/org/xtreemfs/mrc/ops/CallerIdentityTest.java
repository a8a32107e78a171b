package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.mrc.metadata.Caller;

/** Whom a client certificate's subject names, as the JDK prints subjects that openssl's "-subj" made. */
class CallerIdentityTest {
    private static String subject(String rfc2253) {
        return new X500Principal(rfc2253).getName();
    }

    @Test
    void userUidAndGroupsComeFromCnUidAndOu() throws Exception {
        // openssl -subj "/CN=alice/UID=1001/OU=100/OU=20" lists the OUs in this order.
        Caller caller = CallerIdentity.ofSubject(subject("OU=20,OU=100,UID=1001,CN=alice"));
        assertThat(caller).isEqualTo(new Caller("alice", 1001, 100, List.of(20)));
    }

    @Test
    void aSubjectWithoutUidOrGroupOrWithNamesForIdsIsRefused() {
        for (String bad : List.of("CN=alice", "UID=1001,CN=alice", "OU=staff,UID=1001,CN=alice",
                "OU=100,UID=-1,CN=alice")) {
            assertThatThrownBy(() -> CallerIdentity.ofSubject(subject(bad))).as(bad)
                    .isInstanceOfSatisfying(RpcException.class,
                            error -> assertThat(error.errorType()).isEqualTo(ErrorType.AUTH_FAILED));
        }
    }
}
