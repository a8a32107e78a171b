/* One phase of the metadata benchmark, in C so that the raw-disk baseline is not dominated by an
 * interpreter's per-call overhead:
 *
 *   metadata_ops create|stat|unlink DIRECTORY COUNT [LIMIT_S]
 *
 * create: open(O_CREAT | O_EXCL | O_WRONLY, 0644) and close of DIRECTORY/f0 .. f<COUNT-1>;
 * stat:   stat() of each; unlink: unlink() of each. All files live in the one DIRECTORY.
 * With LIMIT_S (seconds, > 0) the loop also stops once that much time has passed, after the
 * operation in progress; "count" then says how many files were done (f0 .. f<count-1>).
 * Prints {"operation": ..., "count": ..., "seconds": ..., "cpu_seconds": ...} on success (monotonic
 * clock around the loop only; cpu_seconds is the user + system CPU time the loop got, so a run that
 * waited for the CPU, not for the file system, shows as cpu_seconds far below seconds); on the first
 * failing call prints the path and errno to stderr and exits 1.
 * Built by run_fuse_bench.py with `cc -O2` into its state folder. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int usage(void) {
    fprintf(stderr, "usage: metadata_ops create|stat|unlink DIRECTORY COUNT [LIMIT_S]\n");
    return 2;
}

static double now_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static int one_operation(const char *operation, const char *path) {
    if (strcmp(operation, "create") == 0) {
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
        return fd < 0 ? -1 : close(fd);
    }
    if (strcmp(operation, "stat") == 0) {
        struct stat attributes;
        return stat(path, &attributes);
    }
    return unlink(path);
}

int main(int argc, char **argv) {
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage();
        return 0;
    }
    if (argc != 4 && argc != 5) return usage();
    const char *operation = argv[1], *directory = argv[2];
    if (strcmp(operation, "create") != 0 && strcmp(operation, "stat") != 0 && strcmp(operation, "unlink") != 0)
        return usage();
    char *end;
    long count = strtol(argv[3], &end, 10);
    if (*end != '\0' || count <= 0) {
        fprintf(stderr, "metadata_ops: COUNT must be a positive integer, not '%s'\n", argv[3]);
        return 2;
    }
    double limit_seconds = 0;  /* 0: no time limit */
    if (argc == 5) {
        limit_seconds = strtod(argv[4], &end);
        if (*end != '\0' || !(limit_seconds > 0)) {
            fprintf(stderr, "metadata_ops: LIMIT_S must be a positive number of seconds, not '%s'\n", argv[4]);
            return 2;
        }
    }
    char path[4096];
    double start = now_seconds(), cpu_start = cpu_seconds();
    long done = 0;
    for (; done < count; done++) {
        if (limit_seconds > 0 && now_seconds() - start >= limit_seconds) break;
        snprintf(path, sizeof path, "%s/f%ld", directory, done);
        if (one_operation(operation, path) != 0) {
            fprintf(stderr, "metadata_ops: %s %s: %s\n", operation, path, strerror(errno));
            return 1;
        }
    }
    double seconds = now_seconds() - start, cpu = cpu_seconds() - cpu_start;
    printf("{\"operation\": \"%s\", \"count\": %ld, \"seconds\": %.6f, \"cpu_seconds\": %.6f}\n", operation, done,
           seconds, cpu);
    return 0;
}
