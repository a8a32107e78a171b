package org.xtreemfs.qos.model;

/** The kind of device behind an OSD; it selects the built-in profile and the device model. */
public enum DeviceClass {
  HDD,
  SSD
}
