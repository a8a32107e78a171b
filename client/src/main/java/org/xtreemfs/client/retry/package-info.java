/**
 * Bounded retry of transient RPC failures with exponential backoff. Invariant: only OVERLOADED rejections and,
 * for idempotent calls, transport errors are repeated, never more than the configured number of attempts.
 */
package org.xtreemfs.client.retry;
