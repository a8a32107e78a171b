// The floor of FUSE on this machine for the metadata rows (issue 10, session 20): a file system that answers
// every request from memory, one flat root folder of empty regular files, mounted with mount.xtreemfs's
// settings (cpp/src/fuse/mount_main.cc, fuse_operations.cc's Init and answers): default_permissions, entry and
// attribute timeouts of 1 s, negative entries kept 1 s, no writeback cache, async_read, max_write 1 MiB,
// max_background 64, libfuse's multi-threaded loop (at most 64 workers). Whatever a client-side design of
// mount.xtreemfs does, a create or an unlink through it costs at least what it costs here.
//
//   floor_fs [--single-thread] [--noflush] [--no-default-permissions] MOUNTPOINT
//
// --single-thread: libfuse's one-thread loop. --noflush: creates answer FOPEN_NOFLUSH (no FLUSH at close).
// --no-default-permissions: the kernel checks no modes (no GETATTR of the folder after each create or
// unlink); the last two show what one request costs, not a setting mount.xtreemfs could take (see
// tests/bench/fuse/README.md, "Issue 10, session 20"). Runs in the foreground until unmounted
// (fusermount3 -u), then prints how many requests of each kind it answered to stderr.
// Build: g++ -O2 -std=c++17 floor_fs.cc $(pkg-config --cflags --libs fuse3) -o floor_fs
#define FUSE_USE_VERSION 314
#include <fuse3/fuse_lowlevel.h>

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

namespace {

struct File {
  mode_t mode;
  uid_t uid;
  gid_t gid;
};

const double kTimeoutS = 1.0;  // mount.xtreemfs's default --metadata-cache-ttl-ms
bool noflush = false;

// The root folder (node 1) and its files; one mutex, as the requests of one loop rarely overlap.
std::mutex mutex;
std::unordered_map<std::string, fuse_ino_t> names;
std::unordered_map<fuse_ino_t, File> files;
fuse_ino_t next_node = 2;
struct timespec root_changed;

enum Kind { kLookup, kGetattr, kCreate, kFlush, kRelease, kUnlink, kForget, kOther, kKinds };
const char* const kKindNames[kKinds] = {"lookup", "getattr", "create", "flush", "release", "unlink", "forget", "other"};
std::atomic<long> answered[kKinds];

void Fill(fuse_ino_t node, const File* file, struct stat* attributes) {
  memset(attributes, 0, sizeof *attributes);
  attributes->st_ino = node;
  if (file == nullptr) {
    attributes->st_mode = S_IFDIR | 0755;
    attributes->st_nlink = 2;
  } else {
    attributes->st_mode = file->mode;
    attributes->st_nlink = 1;
    attributes->st_uid = file->uid;
    attributes->st_gid = file->gid;
  }
  attributes->st_atim = attributes->st_mtim = attributes->st_ctim = root_changed;
}

void Init(void*, struct fuse_conn_info* connection) {
  if (connection->max_write > (1u << 20)) connection->max_write = 1u << 20;
  connection->max_background = 64;
  connection->congestion_threshold = 48;
  if ((connection->capable & FUSE_CAP_ASYNC_READ) != 0) connection->want |= FUSE_CAP_ASYNC_READ;
  connection->want &= ~static_cast<unsigned>(FUSE_CAP_WRITEBACK_CACHE);
}

void Lookup(fuse_req_t request, fuse_ino_t parent, const char* name) {
  ++answered[kLookup];
  struct fuse_entry_param entry;
  memset(&entry, 0, sizeof entry);
  entry.entry_timeout = kTimeoutS;  // a missing name: a negative entry (node 0), as mount.xtreemfs answers
  std::unique_lock<std::mutex> lock(mutex);
  auto found = parent == 1 ? names.find(name) : names.end();
  if (found != names.end()) {
    entry.ino = found->second;
    entry.generation = 1;
    entry.attr_timeout = kTimeoutS;
    Fill(entry.ino, &files[entry.ino], &entry.attr);
  }
  lock.unlock();
  fuse_reply_entry(request, &entry);
}

void Getattr(fuse_req_t request, fuse_ino_t node, struct fuse_file_info*) {
  ++answered[kGetattr];
  struct stat attributes;
  std::unique_lock<std::mutex> lock(mutex);
  if (node == 1) {
    Fill(1, nullptr, &attributes);
  } else {
    auto found = files.find(node);
    if (found == files.end()) {
      lock.unlock();
      fuse_reply_err(request, ENOENT);
      return;
    }
    Fill(node, &found->second, &attributes);
  }
  lock.unlock();
  fuse_reply_attr(request, &attributes, kTimeoutS);
}

void Setattr(fuse_req_t request, fuse_ino_t node, struct stat*, int, struct fuse_file_info* info) {
  Getattr(request, node, info);  // nothing to change: files stay empty
}

void Create(fuse_req_t request, fuse_ino_t parent, const char* name, mode_t mode, struct fuse_file_info* info) {
  ++answered[kCreate];
  const struct fuse_ctx* caller = fuse_req_ctx(request);
  struct fuse_entry_param entry;
  memset(&entry, 0, sizeof entry);
  std::unique_lock<std::mutex> lock(mutex);
  if (parent != 1) {
    lock.unlock();
    fuse_reply_err(request, EACCES);
    return;
  }
  if (names.count(name) != 0) {
    lock.unlock();
    fuse_reply_err(request, EEXIST);
    return;
  }
  const fuse_ino_t node = next_node++;
  names.emplace(name, node);
  File& file = files[node];
  file = File{static_cast<mode_t>(S_IFREG | (mode & 07777)), caller->uid, caller->gid};
  clock_gettime(CLOCK_REALTIME, &root_changed);
  entry.ino = node;
  entry.generation = 1;
  entry.attr_timeout = entry.entry_timeout = kTimeoutS;
  Fill(node, &file, &entry.attr);
  lock.unlock();
  info->fh = node;
  info->noflush = noflush ? 1 : 0;
  fuse_reply_create(request, &entry, info);
}

void Unlink(fuse_req_t request, fuse_ino_t parent, const char* name) {
  ++answered[kUnlink];
  std::unique_lock<std::mutex> lock(mutex);
  auto found = parent == 1 ? names.find(name) : names.end();
  if (found == names.end()) {
    lock.unlock();
    fuse_reply_err(request, ENOENT);
    return;
  }
  files.erase(found->second);
  names.erase(found);
  clock_gettime(CLOCK_REALTIME, &root_changed);
  lock.unlock();
  fuse_reply_err(request, 0);
}

void Open(fuse_req_t request, fuse_ino_t, struct fuse_file_info* info) {
  ++answered[kOther];
  fuse_reply_open(request, info);
}
void Flush(fuse_req_t request, fuse_ino_t, struct fuse_file_info*) {
  ++answered[kFlush];
  fuse_reply_err(request, 0);
}
void Release(fuse_req_t request, fuse_ino_t, struct fuse_file_info*) {
  ++answered[kRelease];
  fuse_reply_err(request, 0);
}
void Forget(fuse_req_t request, fuse_ino_t, uint64_t) {
  ++answered[kForget];
  fuse_reply_none(request);
}
void ForgetMulti(fuse_req_t request, size_t count, struct fuse_forget_data*) {
  answered[kForget] += static_cast<long>(count);
  fuse_reply_none(request);
}
void Opendir(fuse_req_t request, fuse_ino_t, struct fuse_file_info* info) {
  ++answered[kOther];
  fuse_reply_open(request, info);
}
void Readdir(fuse_req_t request, fuse_ino_t, size_t, off_t, struct fuse_file_info*) {
  ++answered[kOther];
  fuse_reply_buf(request, nullptr, 0);  // listings are not what this measures
}
void Releasedir(fuse_req_t request, fuse_ino_t, struct fuse_file_info*) {
  ++answered[kOther];
  fuse_reply_err(request, 0);
}

int Usage() {
  fprintf(stderr, "usage: floor_fs [--single-thread] [--noflush] [--no-default-permissions] MOUNTPOINT\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool single_thread = false;
  bool default_permissions = true;
  const char* mount_point = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--single-thread") == 0) {
      single_thread = true;
    } else if (strcmp(argv[i], "--noflush") == 0) {
      noflush = true;
    } else if (strcmp(argv[i], "--no-default-permissions") == 0) {
      default_permissions = false;
    } else if (argv[i][0] != '-' && mount_point == nullptr) {
      mount_point = argv[i];
    } else {
      return Usage();
    }
  }
  if (mount_point == nullptr) return Usage();
  clock_gettime(CLOCK_REALTIME, &root_changed);
  struct fuse_lowlevel_ops operations;
  memset(&operations, 0, sizeof operations);
  operations.init = Init;
  operations.lookup = Lookup;
  operations.forget = Forget;
  operations.forget_multi = ForgetMulti;
  operations.getattr = Getattr;
  operations.setattr = Setattr;
  operations.create = Create;
  operations.open = Open;
  operations.flush = Flush;
  operations.release = Release;
  operations.unlink = Unlink;
  operations.opendir = Opendir;
  operations.readdir = Readdir;
  operations.releasedir = Releasedir;
  std::string program = "floor_fs", dash_o = "-o";
  std::string options = std::string("fsname=floor_fs,subtype=floor_fs") + (default_permissions ? ",default_permissions" : "");
  char* fuse_argv[] = {program.data(), dash_o.data(), options.data()};
  struct fuse_args args = FUSE_ARGS_INIT(3, fuse_argv);
  struct fuse_session* session = fuse_session_new(&args, &operations, sizeof operations, nullptr);
  if (session == nullptr) return 1;
  if (fuse_session_mount(session, mount_point) != 0) {
    fuse_session_destroy(session);
    return 1;
  }
  int result = 1;
  if (fuse_set_signal_handlers(session) == 0) {
    if (single_thread) {
      result = fuse_session_loop(session);
    } else {
      struct fuse_loop_config* loop = fuse_loop_cfg_create();
      fuse_loop_cfg_set_max_threads(loop, 64);
      result = fuse_session_loop_mt(session, loop);
      fuse_loop_cfg_destroy(loop);
    }
    fuse_remove_signal_handlers(session);
  }
  fuse_session_unmount(session);
  fuse_session_destroy(session);
  for (int kind = 0; kind < kKinds; ++kind) fprintf(stderr, "%s=%ld ", kKindNames[kind], answered[kind].load());
  fprintf(stderr, "\n");
  return result == 0 ? 0 : 1;
}
