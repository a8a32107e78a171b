/**
 * Pure striping arithmetic of the client: which objects, object offsets and stripe positions a byte range
 * touches. Invariant: object n lives on stripe position n mod width and holds file bytes
 * [n*objectSize, (n+1)*objectSize).
 */
package org.xtreemfs.client.striping;
