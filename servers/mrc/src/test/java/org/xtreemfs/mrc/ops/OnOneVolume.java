package org.xtreemfs.mrc.ops;

import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;

import org.junit.jupiter.api.BeforeEach;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** The setting most operation tests share: a fresh store with one volume "vol", used as root. */
abstract class OnOneVolume {
    protected final NamespaceFixture fixture = new NamespaceFixture();
    protected final Namespace namespace = fixture.namespace;

    @BeforeEach
    void createVolume() throws Exception {
        fixture.createVolume("vol");
    }

    protected OperationContext root() {
        return fixture.as(ROOT);
    }

    protected Stat stat(String path) throws Exception {
        return GetattrOp.getattr(namespace, root(), "vol", path);
    }

    /** Creates a regular file (mode 0644) as root. */
    protected OpenResult create(String path) throws Exception {
        return fixture.open(root(), "vol", path, CREAT | WRONLY, 0644);
    }
}
