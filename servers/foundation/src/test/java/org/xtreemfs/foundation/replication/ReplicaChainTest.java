package org.xtreemfs.foundation.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.Replica;
import org.xtreemfs.interfaces.common.XLocSet;

class ReplicaChainTest {
    private static XLocSet xloc(int fillingIndex, String... osds) {
        XLocSet.Builder builder = XLocSet.newBuilder().setVersion(2);
        for (int index = 0; index < osds.length; index++) {
            builder.addReplicas(Replica.newBuilder().addOsdUuids(osds[index]).setFilling(index == fillingIndex));
        }
        return builder.build();
    }

    @Test
    void aFillingReplicaBeforeTheTailIsSkippedByReadsButNotByUpdates() {
        ReplicaChain chain = ReplicaChain.of(xloc(2, "head", "middle", "filling", "tail"));
        ReplicaChain.Member middle = chain.member("middle").orElseThrow();
        assertThat(chain.successor(middle)).contains("filling");
        assertThat(chain.readSuccessor(middle)).contains("tail");
        assertThat(chain.readSuccessor(chain.member("head").orElseThrow())).contains("middle");
        assertThat(chain.readSuccessor(chain.member("tail").orElseThrow())).isEmpty();
        assertThat(chain.readableChainAt(0)).isEqualTo(List.of("head", "middle", "tail"));
        assertThat(chain.chainAt(0)).isEqualTo(List.of("head", "middle", "filling", "tail"));
    }

    @Test
    void withoutAFillingReplicaEveryMemberReadsAndPassesReadsToItsSuccessor() {
        ReplicaChain chain = ReplicaChain.of(xloc(-1, "head", "tail"));
        assertThat(chain.readSuccessor(chain.member("head").orElseThrow())).contains("tail");
        assertThat(chain.readableChainAt(0)).isEqualTo(List.of("head", "tail"));
    }

    @Test
    void aFillingHeadIsNoReadCandidate() {
        ReplicaChain chain = ReplicaChain.of(xloc(0, "new-head", "tail"));
        assertThat(chain.readableChainAt(0)).isEqualTo(List.of("tail"));
        assertThat(chain.readSuccessor(chain.member("new-head").orElseThrow())).contains("tail");
    }
}
