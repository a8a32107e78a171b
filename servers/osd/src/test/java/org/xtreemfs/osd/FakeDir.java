package org.xtreemfs.osd;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.xtreemfs.foundation.rpc.RpcServer;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.AddressMappingsSetResponse;
import org.xtreemfs.interfaces.dir.DirInterface;
import org.xtreemfs.interfaces.dir.DirProcedure;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceRegisterRequest;
import org.xtreemfs.interfaces.dir.ServiceRegisterResponse;

/** A DIR that only records registrations and address mappings, for OSD tests on loopback. */
final class FakeDir implements AutoCloseable {
    final List<Service> registrations = new CopyOnWriteArrayList<>();
    final List<AddressMappingSet> mappings = new CopyOnWriteArrayList<>();
    private final RpcServer server;
    final InetSocketAddress address;

    FakeDir() throws InterruptedException {
        int dir = DirInterface.DIR_INTERFACE_ID_VALUE;
        server = RpcServer.builder("fake-dir", new InetSocketAddress("127.0.0.1", 0))
                .handle(dir, DirProcedure.DIR_ADDRESS_MAPPINGS_SET_VALUE, call -> {
                    mappings.add(call.request(AddressMappingSet.parser()));
                    call.respond(AddressMappingsSetResponse.newBuilder().setVersion(mappings.size()).build());
                })
                .handle(dir, DirProcedure.DIR_SERVICE_REGISTER_VALUE, call -> {
                    registrations.add(call.request(ServiceRegisterRequest.parser()).getService());
                    call.respond(ServiceRegisterResponse.newBuilder().setVersion(registrations.size()).build());
                })
                .build();
        address = server.start();
    }

    String hostPort() {
        return "127.0.0.1:" + address.getPort();
    }

    @Override
    public void close() {
        server.close();
    }
}
