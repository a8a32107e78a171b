package org.xtreemfs.mrc.stages;

import com.google.protobuf.MessageLite;

/** The deterministic apply step of one metadata operation; runs on the metadata thread. */
@FunctionalInterface
public interface MetadataOperation {
    MessageLite apply() throws Exception;
}
