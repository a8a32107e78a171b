/**
 * Protobuf RPC over Netty with XtreemFS-style record framing: a 12-byte record marker, an {@code RpcHeader},
 * the request or response message and a raw data segment that is never copied into a protobuf field.
 * Invariant: every call gets exactly one response or one failure, and a malformed frame closes only its
 * own connection.
 */
package org.xtreemfs.foundation.rpc;
