package org.xtreemfs.osd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xtreemfs.foundation.capability.XCapSigner;
import org.xtreemfs.foundation.clock.ManualClock;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.foundation.rpc.RpcClient;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.interfaces.common.AccessMode;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.StripingPolicy;
import org.xtreemfs.interfaces.common.XCap;
import org.xtreemfs.interfaces.common.XLocSet;
import org.xtreemfs.interfaces.osd.Lock;
import org.xtreemfs.interfaces.osd.LockKind;
import org.xtreemfs.interfaces.osd.LockRenewRequest;
import org.xtreemfs.interfaces.osd.LockRenewResponse;
import org.xtreemfs.interfaces.osd.LockRequest;
import org.xtreemfs.interfaces.osd.LockResponse;
import org.xtreemfs.interfaces.osd.OsdInterface;
import org.xtreemfs.interfaces.osd.OsdProcedure;
import org.xtreemfs.interfaces.rpc.ErrorType;
import org.xtreemfs.interfaces.rpc.UserCredentials;

/** The lock procedures through the in-process OSD's RPC interface, with a manual clock for the lease. */
class OsdLocksTest {
    private static final String SECRET = "osd-locks-test-secret";
    private static final String UUID = "osd-head";
    private static final String FILE = "vol-1:7";
    private static final UserCredentials USER = UserCredentials.newBuilder().setUsername("test").build();

    @TempDir
    Path dataFolder;

    private final ManualClock clock = new ManualClock(System.currentTimeMillis());
    private final XCapSigner signer = new XCapSigner(SECRET);
    private FakeDir dir;
    private OsdServer server;
    private RpcClient rpcClient;
    private InetSocketAddress osdAddress;

    @BeforeEach
    void start() throws Exception {
        dir = new FakeDir();
        server = new OsdServer(OsdConfig.of(TestOsdConfigs.loopback(dataFolder, dir.hostPort(), UUID, SECRET,
                Map.of("osd.locks.leaseMs", "5000", "osd.locks.perFileMax", "3"))), clock);
        osdAddress = server.start().rpc();
        rpcClient = new RpcClient("osd-locks-test");
    }

    @AfterEach
    void stop() {
        rpcClient.close();
        server.close();
        dir.close();
    }

    private FileCredentials credentials(String... osdUuids) {
        XCap capability = signer.sign(XCap.newBuilder().setFileId(FILE).setVolumeId("vol-1")
                .setAccessMode(AccessMode.ACCESS_MODE_READ).setExpiresMs(System.currentTimeMillis() + 600_000)
                .build());
        Replica.Builder replica = Replica.newBuilder().setStripingPolicy(StripingPolicy.newBuilder().setWidth(0));
        for (String uuid : osdUuids) {
            replica.addOsdUuids(uuid);
        }
        return FileCredentials.newBuilder().setXcap(capability).setXlocs(XLocSet.newBuilder().addReplicas(replica))
                .build();
    }

    private static Lock posix(String client, long owner, int pid, long offset, long length, boolean exclusive) {
        return Lock.newBuilder().setClientUuid(client).setOwner(owner).setPid(pid).setOffsetBytes(offset)
                .setLengthBytes(length).setExclusive(exclusive).setKind(LockKind.LOCK_KIND_POSIX).build();
    }

    private LockResponse call(OsdProcedure procedure, Lock lock, FileCredentials credentials) throws RpcException {
        return RpcClient.await(rpcClient.callParsed(osdAddress, OsdInterface.OSD_INTERFACE_ID_VALUE,
                procedure.getNumber(), USER, LockRequest.newBuilder().setCredentials(credentials).setFileId(FILE)
                        .setLock(lock).build(), LockResponse.parser(), 10_000));
    }

    private LockResponse call(OsdProcedure procedure, Lock lock) throws RpcException {
        return call(procedure, lock, credentials(UUID));
    }

    private LockRenewResponse renew(String client) throws RpcException {
        return RpcClient.await(rpcClient.callParsed(osdAddress, OsdInterface.OSD_INTERFACE_ID_VALUE,
                OsdProcedure.OSD_LOCK_RENEW_VALUE, USER, LockRenewRequest.newBuilder().setClientUuid(client).build(),
                LockRenewResponse.parser(), 10_000));
    }

    @Test
    void twoClientsAcquireCheckAndReleaseThroughTheRpcInterface() throws Exception {
        // Proves acquire/conflict (ERRNO EAGAIN)/check (holder's pid and range)/release end to end, read access only.
        assertThat(call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("a", 1, 4242, 0, 100, true)).getLeaseMs())
                .isEqualTo(5000);
        assertThatThrownBy(() -> call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("b", 1, 77, 50, 0, false)))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(ErrorType.ERRNO);
                    assertThat(e.posixErrno()).isEqualTo(Errno.EAGAIN);
                });
        assertThat(call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("b", 1, 77, 100, 0, true)).getLeaseMs()).isEqualTo(5000);
        LockResponse check = call(OsdProcedure.OSD_LOCK_CHECK, posix("b", 1, 77, 10, 1, false));
        assertThat(check.getConflicting()).isEqualTo(posix("a", 1, 4242, 0, 100, true));
        assertThat(call(OsdProcedure.OSD_LOCK_CHECK, posix("a", 1, 4242, 0, 100, true)).hasConflicting()).isFalse();

        call(OsdProcedure.OSD_LOCK_RELEASE, posix("a", 1, 4242, 0, 0, false));
        assertThat(server.locks().locksOf(FILE)).hasSize(1);
        assertThat(call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("b", 1, 77, 0, 100, true)).getLeaseMs()).isEqualTo(5000);
        assertThat(server.locks().locksOf(FILE)).hasSize(1);  // merged with [100, EOF)
        assertThat(server.status()).containsEntry("locksHeld", 1).containsEntry("lockClients", 1);
    }

    @Test
    void aSilentClientsLocksExpireAfterTheLeaseWhileARenewingOneKeepsThem() throws Exception {
        // Proves the lease over RPC: OSD_LOCK_RENEW keeps locks; a client that stops renewing loses them.
        call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("a", 1, 1, 0, 10, true));
        call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("b", 1, 2, 20, 10, true));
        clock.advanceMillis(4_000);
        assertThat(renew("a").getLocksHeld()).isEqualTo(1);
        clock.advanceMillis(4_000);
        assertThat(renew("a").getLeaseMs()).isEqualTo(5000);
        call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("c", 1, 3, 20, 10, true));
        assertThatThrownBy(() -> call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("c", 1, 3, 0, 10, true)))
                .isInstanceOfSatisfying(RpcException.class, e -> assertThat(e.posixErrno()).isEqualTo(Errno.EAGAIN));
        assertThat(renew("b").getLocksHeld()).isZero();
    }

    @Test
    void locksGoToTheHeadOsdAndNeedAValidCapabilityAndSaneShape() {
        // Proves the checks: stripe position 0 only, signed capability, known kind, client UUID, per-file bound.
        assertThatThrownBy(() -> call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("a", 1, 1, 0, 1, true),
                credentials("other-osd", UUID)))
                .isInstanceOfSatisfying(RpcException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS);
                    assertThat(e).hasMessageContaining("head OSD");
                });
        FileCredentials unsigned = credentials(UUID).toBuilder()
                .setXcap(credentials(UUID).getXcap().toBuilder().setSignature(com.google.protobuf.ByteString.EMPTY))
                .build();
        assertThatThrownBy(() -> call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("a", 1, 1, 0, 1, true), unsigned))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.AUTH_FAILED));
        assertThatThrownBy(() -> call(OsdProcedure.OSD_LOCK_ACQUIRE,
                posix("a", 1, 1, 0, 1, true).toBuilder().setKind(LockKind.LOCK_KIND_UNSPECIFIED).build()))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS));
        assertThatThrownBy(() -> call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("", 1, 1, 0, 1, true)))
                .isInstanceOfSatisfying(RpcException.class,
                        e -> assertThat(e.errorType()).isEqualTo(ErrorType.INVALID_ARGS));
        assertThatThrownBy(() -> {
            for (int i = 0; i < 4; i++) {
                call(OsdProcedure.OSD_LOCK_ACQUIRE, posix("a", 1, 1, i * 10L, 5, true));
            }
        }).isInstanceOfSatisfying(RpcException.class, e -> {
            assertThat(e.posixErrno()).isEqualTo(Errno.ENOLCK);
            assertThat(e).hasMessageContaining("osd.locks.perFileMax");
        });
    }
}
