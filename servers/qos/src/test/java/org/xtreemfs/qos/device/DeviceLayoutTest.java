package org.xtreemfs.qos.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeviceLayoutTest {
    private static final long TIB = 1L << 40;
    private static final int OBJECT = 128 * 1024;

    @Test
    void aFilesObjectsLieBackToBackInItsRegion() {
        // Proves sequential file access is sequential on the device: object n+1 starts where object n ends.
        IoRequest first = DeviceLayout.request(IoKind.WRITE, "volume:file-7", 0, OBJECT, 0, OBJECT, TIB);
        IoRequest second = DeviceLayout.request(IoKind.WRITE, "volume:file-7", 1, OBJECT, 0, OBJECT, TIB);
        IoRequest inside = DeviceLayout.request(IoKind.READ, "volume:file-7", 1, OBJECT, 4096, 4096, TIB);
        assertThat(first.offsetBytes()).isEqualTo(DeviceLayout.regionStartBytes("volume:file-7", TIB));
        assertThat(second.offsetBytes()).isEqualTo(first.endBytes());
        assertThat(inside.offsetBytes()).isEqualTo(second.offsetBytes() + 4096);
        assertThat(first.offsetBytes() % DeviceLayout.REGION_BYTES).isZero();
    }

    @Test
    void aFileLargerThanItsRegionWrapsInsideIt() {
        // Proves the invariant that a request never leaves its file's region, even for a file beyond the region.
        long objectsPerRegion = DeviceLayout.REGION_BYTES / OBJECT;
        IoRequest wrapped = DeviceLayout.request(IoKind.READ, "big", objectsPerRegion + 3, OBJECT, 0, OBJECT, TIB);
        IoRequest third = DeviceLayout.request(IoKind.READ, "big", 3, OBJECT, 0, OBJECT, TIB);
        assertThat(wrapped).isEqualTo(third);
        IoRequest odd = DeviceLayout.request(IoKind.READ, "big", 0, 3 * 1000 * 1000, 0, 3 * 1000 * 1000, TIB);
        long region = DeviceLayout.regionStartBytes("big", TIB);
        for (long object = 0; object < 400; object++) {
            IoRequest request = DeviceLayout.request(IoKind.READ, "big", object, odd.lengthBytes(), 0,
                    odd.lengthBytes(), TIB);
            assertThat(request.offsetBytes()).isGreaterThanOrEqualTo(region);
            assertThat(request.endBytes()).isLessThanOrEqualTo(region + DeviceLayout.REGION_BYTES);
        }
    }

    @Test
    void theCalibrationFilesLieInDistinctRegionsSpreadOverTheDisk() {
        // Proves the calibration's streams seek between files (no two share a region) over most of the disk.
        Set<Long> regions = new HashSet<>();
        long lowest = Long.MAX_VALUE;
        long highest = 0;
        for (int file = 0; file < CalibrationPattern.FILE_COUNT; file++) {
            long start = DeviceLayout.regionStartBytes(CalibrationPattern.fileId(file), TIB);
            regions.add(start);
            lowest = Math.min(lowest, start);
            highest = Math.max(highest, start);
        }
        assertThat(regions).hasSize(CalibrationPattern.FILE_COUNT);
        assertThat(DeviceLayout.regionStartBytes(CalibrationPattern.fileId(0), TIB))
                .as("the lone stream's file lies in the innermost region").isEqualTo(TIB - DeviceLayout.REGION_BYTES);
        assertThat(highest - lowest).isGreaterThan(TIB / 2);
    }

    @Test
    void aSmallDeviceIsOneRegion() {
        // Proves a device smaller than a region still maps every request inside the device.
        long capacity = 64L << 20;
        IoRequest request = DeviceLayout.request(IoKind.WRITE, "any", 1000, OBJECT, 0, OBJECT, capacity);
        assertThat(request.endBytes()).isLessThanOrEqualTo(capacity);
    }
}
