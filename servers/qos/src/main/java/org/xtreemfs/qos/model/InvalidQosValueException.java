package org.xtreemfs.qos.model;

/**
 * A user- or configuration-supplied QoS value that cannot be accepted. The message names the field and
 * quotes the value, so tools can print it as it is.
 */
public final class InvalidQosValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String value;

  public InvalidQosValueException(String field, String value, String problem) {
    super(field + ": \"" + value + "\" " + problem);
    this.field = field;
    this.value = value;
  }

  /** The name of the field or configuration key the value was given for. */
  public String field() {
    return field;
  }

  /** The offending value as it was given. */
  public String value() {
    return value;
  }
}
