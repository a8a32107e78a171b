package org.xtreemfs.mrc.stages;

/**
 * The deterministic apply step of one metadata operation; runs on the metadata thread. Its result is
 * whatever the operation answers from (a response message, or what capabilities are issued for after it).
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface MetadataOperation<T> {
    T apply() throws Exception;
}
