/**
 * The DIR (directory service): {@code DirMain} parses the command line, {@code DirConfig} holds the validated
 * settings and {@code DirServer} only wires the registry, its stage, the RPC handlers and the status page.
 * Invariant: nothing here holds registry state; it lives in {@code registry} and its KV store.
 */
package org.xtreemfs.dir;
