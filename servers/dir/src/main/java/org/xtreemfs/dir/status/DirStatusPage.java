package org.xtreemfs.dir.status;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.xtreemfs.dir.registry.ServiceRegistry;
import org.xtreemfs.dir.registry.VolumeRegistry;
import org.xtreemfs.foundation.clock.Clock;
import org.xtreemfs.foundation.stage.StageMetrics;
import org.xtreemfs.interfaces.common.KeyValuePair;
import org.xtreemfs.interfaces.dir.AddressMapping;
import org.xtreemfs.interfaces.dir.AddressMappingSet;
import org.xtreemfs.interfaces.dir.OsdAttributes;
import org.xtreemfs.interfaces.dir.Service;
import org.xtreemfs.interfaces.dir.ServiceType;
import org.xtreemfs.interfaces.dir.VolumeRegistration;

/**
 * Renders what the DIR knows: every service with its status as callers see it, heartbeat age, addresses
 * and OSD attributes, and every volume with its MRC. The HTML page and the JSON document are built from
 * the same snapshot model, so they never disagree.
 */
public final class DirStatusPage {
    private final ServiceRegistry services;
    private final VolumeRegistry volumes;
    private final Clock clock;
    private final Supplier<StageMetrics> registryStageMetrics;

    public DirStatusPage(ServiceRegistry services, VolumeRegistry volumes, Clock clock,
            Supplier<StageMetrics> registryStageMetrics) {
        this.services = services;
        this.volumes = volumes;
        this.clock = clock;
        this.registryStageMetrics = registryStageMetrics;
    }

    /** The status as a JSON-ready map: services, volumes, heartbeat timeout and registry stage load. */
    public Map<String, Object> json() {
        long nowMs = clock.wallClockMillis();
        Map<String, AddressMappingSet> mappings = services.allAddressMappings();
        List<Object> serviceList = new ArrayList<>();
        for (Service service : services.allServices()) {
            serviceList.add(serviceJson(service, mappings.get(service.getUuid()), nowMs));
        }
        List<Object> volumeList = new ArrayList<>();
        for (VolumeRegistration volume : volumes.list()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", volume.getVolumeName());
            entry.put("id", volume.getVolumeId());
            entry.put("mrcUuid", volume.getMrcUuid());
            volumeList.add(entry);
        }
        StageMetrics stage = registryStageMetrics.get();
        Map<String, Object> registryStage = new LinkedHashMap<>();
        registryStage.put("queueLength", stage.queueLength());
        registryStage.put("queueCapacity", stage.queueCapacity());
        registryStage.put("handled", stage.handledCount());
        registryStage.put("rejected", stage.rejectedCount());
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("service", "dir");
        status.put("health", StageMetrics.health(stage));
        status.put("nowMs", nowMs);
        status.put("heartbeatTimeoutMs", services.heartbeatTimeoutMs());
        status.put("services", serviceList);
        status.put("volumes", volumeList);
        status.put("registryStage", registryStage);
        return status;
    }

    private static Map<String, Object> serviceJson(Service service, AddressMappingSet mappings, long nowMs) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("uuid", service.getUuid());
        entry.put("type", typeName(service.getType()));
        entry.put("name", service.getName());
        entry.put("status", statusName(service));
        entry.put("version", service.getVersion());
        entry.put("lastHeartbeatMs", service.getLastHeartbeatMs());
        entry.put("heartbeatAgeMs", nowMs - service.getLastHeartbeatMs());
        List<String> addresses = new ArrayList<>();
        if (mappings != null) {
            for (AddressMapping mapping : mappings.getMappingsList()) {
                addresses.add(addressText(mapping));
            }
        }
        entry.put("addresses", addresses);
        if (service.hasOsdAttributes()) {
            OsdAttributes osd = service.getOsdAttributes();
            Map<String, Object> attributes = new LinkedHashMap<>();
            attributes.put("usageType", osd.getUsageType().name());
            attributes.put("deviceClass", osd.getDeviceClass().name());
            attributes.put("freeBytes", osd.getFreeBytes());
            attributes.put("totalBytes", osd.getTotalBytes());
            attributes.put("loadPercent", osd.getLoadPercent());
            attributes.put("queueLength", osd.getQueueLength());
            attributes.put("deviceProfile", osd.getDeviceProfile());
            entry.put("osd", attributes);
        }
        Map<String, Object> staticAttributes = new LinkedHashMap<>();
        for (KeyValuePair pair : service.getStaticAttributesList()) {
            staticAttributes.put(pair.getKey(), pair.getValue());
        }
        entry.put("staticAttributes", staticAttributes);
        return entry;
    }

    /** A self-contained HTML page with one table of services and one of volumes. */
    public String render() {
        long nowMs = clock.wallClockMillis();
        Map<String, AddressMappingSet> mappings = services.allAddressMappings();
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>XtreemFS DIR</title>")
                .append("<style>body{font-family:sans-serif}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #999;padding:2px 6px;text-align:left}")
                .append(".DEAD{color:#b00}.OFFLINE{color:#777}</style></head><body>\n")
                .append("<h1>XtreemFS DIR</h1>\n<p>Services are reported DEAD after ")
                .append(services.heartbeatTimeoutMs()).append(" ms without a heartbeat. JSON: <a href=\"")
                .append("/status.json\">/status.json</a></p>\n");
        html.append("<h2>Services</h2>\n<table><tr><th>uuid</th><th>type</th><th>name</th><th>status</th>")
                .append("<th>last heartbeat</th><th>version</th><th>addresses</th><th>usage</th><th>device</th>")
                .append("<th>free / total</th><th>load</th><th>queue</th></tr>\n");
        for (Service service : services.allServices()) {
            String status = statusName(service);
            html.append("<tr class=\"").append(status).append("\">");
            cell(html, service.getUuid());
            cell(html, typeName(service.getType()));
            cell(html, service.getName());
            cell(html, status);
            cell(html, ageText(nowMs - service.getLastHeartbeatMs()));
            cell(html, Long.toString(service.getVersion()));
            cell(html, addressesText(mappings.get(service.getUuid())));
            if (service.hasOsdAttributes()) {
                OsdAttributes osd = service.getOsdAttributes();
                cell(html, osd.getUsageType().name());
                cell(html, osd.getDeviceClass().name()
                        + (osd.getDeviceProfile().isEmpty() ? "" : " (" + osd.getDeviceProfile() + ")"));
                cell(html, mebibytes(osd.getFreeBytes()) + " / " + mebibytes(osd.getTotalBytes()));
                cell(html, osd.getLoadPercent() + " %");
                cell(html, Integer.toString(osd.getQueueLength()));
            } else {
                html.append("<td></td><td></td><td></td><td></td><td></td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n<h2>Volumes</h2>\n<table><tr><th>name</th><th>id</th><th>MRC uuid</th></tr>\n");
        for (VolumeRegistration volume : volumes.list()) {
            html.append("<tr>");
            cell(html, volume.getVolumeName());
            cell(html, volume.getVolumeId());
            cell(html, volume.getMrcUuid());
            html.append("</tr>\n");
        }
        StageMetrics stage = registryStageMetrics.get();
        html.append("</table>\n<p>Registry stage: ").append(stage.queueLength()).append(" of ")
                .append(stage.queueCapacity()).append(" queued, ").append(stage.handledCount())
                .append(" handled, ").append(stage.rejectedCount()).append(" rejected.</p>\n</body></html>\n");
        return html.toString();
    }

    private static void cell(StringBuilder html, String text) {
        html.append("<td>").append(escape(text)).append("</td>");
    }

    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }

    private static String statusName(Service service) {
        return service.getStatus().name().replace("SERVICE_STATUS_", "");
    }

    private static String typeName(ServiceType type) {
        return type.name().replace("SERVICE_TYPE_", "");
    }

    private static String addressText(AddressMapping mapping) {
        return mapping.getProtocol() + "://" + mapping.getAddress() + ":" + mapping.getPort();
    }

    private static String addressesText(AddressMappingSet mappings) {
        if (mappings == null) {
            return "";
        }
        List<String> texts = new ArrayList<>();
        for (AddressMapping mapping : mappings.getMappingsList()) {
            texts.add(addressText(mapping));
        }
        return String.join(", ", texts);
    }

    /** Heartbeat age for people: "4.2 s ago"; negative ages (the DIR's clock went back) show as such. */
    private static String ageText(long ageMs) {
        return String.format("%.1f s ago", ageMs / 1000.0);
    }

    private static String mebibytes(long bytes) {
        return (bytes >> 20) + " MiB";
    }
}
