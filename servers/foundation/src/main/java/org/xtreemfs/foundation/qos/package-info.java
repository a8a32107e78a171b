/**
 * The one codec between the wire messages of interface/ and the QoS library's model (qos.model): the wire
 * carries the library's exact units, so a reservation or profile survives a round trip bit for bit, and
 * every validity rule stays in qos.model.
 */
package org.xtreemfs.foundation.qos;
