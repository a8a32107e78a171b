/*
 * The kernel's cost of small writes into page-cache files by the size of the writes that created the files (issue 10,
 * tests/bench/fuse/README.md "random write into 1 MiB objects"): ext4 (Linux 6.16+) sizes a new folio by the write
 * that creates it, and a later 4 KiB write walks every block buffer of its folio.
 *
 *   cc -O2 -pthread -o page_cache_pieces page_cache_pieces.c
 *   page_cache_pieces FOLDER FILES FILE_BYTES PIECE_BYTES THREADS WRITES
 *
 * Writes FILES files of FILE_BYTES in FOLDER (which must exist and be empty) sequentially in pwrite calls of
 * PIECE_BYTES, syncs, then does WRITES random 4 KiB pwrites over THREADS threads; prints the CPU time per MiB of the
 * first part and per write of the second (user + system, of this process only). Removes nothing: remove FOLDER after.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int file_count, file_bytes, thread_count;
static long write_count;
static int *descriptors;

static double cpu_us(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

static double now_s(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec + time.tv_nsec / 1e9;
}

static void *random_writes(void *argument) {
    unsigned seed = (unsigned) (long) argument * 7919u + 1u;
    char block[4096];
    memset(block, 0x5a, sizeof block);
    for (long i = 0; i < write_count / thread_count; i++) {
        int file = rand_r(&seed) % file_count;
        off_t offset = (off_t) (rand_r(&seed) % (file_bytes / 4096)) * 4096;
        if (pwrite(descriptors[file], block, sizeof block, offset) != (ssize_t) sizeof block) {
            perror("random pwrite");
            exit(1);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 7 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: %s FOLDER FILES FILE_BYTES PIECE_BYTES THREADS WRITES\n"
                "  e.g. %s /tmp/pieces 256 1048576 65536 16 400000 (see the comment at the top of the source)\n",
                argv[0], argv[0]);
        return argc == 2 ? 0 : 2;
    }
    file_count = atoi(argv[2]);
    file_bytes = atoi(argv[3]);
    int piece_bytes = atoi(argv[4]);
    thread_count = atoi(argv[5]);
    write_count = atol(argv[6]);
    if (file_count < 1 || file_bytes < 4096 || file_bytes % 4096 != 0 || piece_bytes < 1
            || file_bytes % piece_bytes != 0 || thread_count < 1 || thread_count > 256 || write_count < thread_count) {
        fprintf(stderr, "bad arguments: need FILES >= 1, FILE_BYTES a multiple of 4096 and of PIECE_BYTES, "
                "1 <= THREADS <= 256, WRITES >= THREADS\n");
        return 2;
    }
    descriptors = calloc(file_count, sizeof *descriptors);
    char *data = malloc(file_bytes);
    for (int i = 0; i < file_bytes; i++) {
        data[i] = (char) (i * 7);
    }
    double cpu_before = cpu_us();
    for (int i = 0; i < file_count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%d", argv[1], i);
        descriptors[i] = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (descriptors[i] < 0) {
            perror(path);
            return 1;
        }
        for (int offset = 0; offset < file_bytes; offset += piece_bytes) {
            if (pwrite(descriptors[i], data + offset, piece_bytes, offset) != piece_bytes) {
                perror("sequential pwrite");
                return 1;
            }
        }
    }
    double sequential_us_per_mib = (cpu_us() - cpu_before) / ((double) file_count * file_bytes / 1048576);
    syncfs(descriptors[0]);
    pthread_t threads[256];
    cpu_before = cpu_us();
    double wall_before = now_s();
    for (long i = 0; i < thread_count; i++) {
        pthread_create(&threads[i], NULL, random_writes, (void *) i);
    }
    for (int i = 0; i < thread_count; i++) {
        pthread_join(threads[i], NULL);
    }
    long done = write_count / thread_count * thread_count;
    printf("%d files of %d bytes written in %d-byte pieces: %.0f us CPU per MiB; then %d threads of random 4 KiB"
           " writes: %.2f us CPU per write, %.0f writes/s\n", file_count, file_bytes, piece_bytes,
           sequential_us_per_mib, thread_count, (cpu_us() - cpu_before) / done, done / (now_s() - wall_before));
    return 0;
}
