// End-to-end smoke test of the client core against real DIR, MRC and OSD processes (started by
// run_e2e.sh): creates a volume, then writes, reads, truncates and deletes through Volume and
// FileHandle. Prints one line per check; exits non-zero on the first failure.
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>

#include "client/dir_url.h"
#include "client/file_handle.h"
#include "client/volume.h"
#include "dir.pb.h"
#include "mrc.pb.h"
#include "rpc/retrying_transport.h"
#include "rpc/rpc_client.h"

namespace {

using namespace xtreemfs;

constexpr int kVolumeRegistrationPollsMax = 100;  // 100 x 100 ms

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

template <typename Response>
Response CallParsed(rpc::Transport& transport, const rpc::ServiceAddress& address,
                    std::uint32_t interface_id, std::uint32_t procedure_id,
                    const google::protobuf::MessageLite& message) {
  rpc::CallRequest request;
  request.interface_id = interface_id;
  request.procedure_id = procedure_id;
  static const rpc::UserCredentials root = [] {
    rpc::UserCredentials credentials;
    credentials.set_username("root");
    return credentials;
  }();
  request.credentials = &root;
  request.message = &message;
  rpc::CallOptions options;
  options.timeout_ms = 10000;
  return rpc::ParseResponse<Response>(transport.Call(address, request, options));
}

void CreateVolume(rpc::Transport& transport, const client::DirUrl& url, std::uint32_t stripe_width) {
  const rpc::ServiceAddress dir{url.host, url.port};
  dir::ServiceGetByTypeRequest by_type;
  by_type.set_type(dir::SERVICE_TYPE_MRC);
  const auto services = CallParsed<dir::ServiceSet>(transport, dir, dir::DIR_INTERFACE_ID,
                                                    dir::DIR_SERVICE_GET_BY_TYPE, by_type);
  if (services.services_size() == 0) throw std::runtime_error("no MRC registered at the DIR");
  dir::AddressMappingsGetRequest mapping_request;
  mapping_request.set_uuid(services.services(0).uuid());
  const auto mappings = CallParsed<dir::AddressMappingSet>(
      transport, dir, dir::DIR_INTERFACE_ID, dir::DIR_ADDRESS_MAPPINGS_GET, mapping_request);
  if (mappings.mappings_size() == 0) throw std::runtime_error("MRC has no address mapping");
  const rpc::ServiceAddress mrc{mappings.mappings(0).address(),
                                static_cast<std::uint16_t>(mappings.mappings(0).port())};
  mrc::VolumeCreateRequest create;
  create.mutable_volume()->set_name(url.volume_name);
  create.mutable_volume()->set_mode(0777);
  auto* striping = create.mutable_volume()->mutable_default_striping_policy();
  striping->set_type(common::RAID0);
  striping->set_object_size_bytes(131072);
  striping->set_width(stripe_width);
  CallParsed<mrc::Volume>(transport, mrc, mrc::MRC_INTERFACE_ID, mrc::MRC_VOLUME_CREATE, create);
}

std::string RandomBytes(std::size_t length_bytes, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::string bytes(length_bytes, '\0');
  for (char& byte : bytes) byte = static_cast<char>(generator() & 0xff);
  return bytes;
}

int ErrnoOf(const std::function<void()>& operation) {
  try {
    operation();
  } catch (const rpc::RpcError& error) {
    return error.posix_errno();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s host:port/volume STRIPE_WIDTH\n", argv[0]);
    return 2;
  }
  const client::DirUrl url = client::ParseDirUrl(argv[1]);
  rpc::RpcClient rpc_client;
  rpc::RetryingTransport transport(rpc_client, rpc::RetryPolicy());
  client::SystemClock clock;
  try {
    CreateVolume(transport, url, static_cast<std::uint32_t>(std::stoul(argv[2])));
    Check(true, "volume created through the MRC found at the DIR");
    std::unique_ptr<client::Volume> volume;
    for (int poll = 0; poll < kVolumeRegistrationPollsMax && !volume; ++poll) {
      try {
        volume = client::Volume::Open(transport, url, clock);
      } catch (const rpc::RpcError& error) {
        if (error.posix_errno() != ENOENT) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    Check(volume != nullptr, "Volume::Open finds the volume's MRC through the DIR");
    if (!volume) return 1;

    rpc::UserCredentials user;
    user.set_username("root");
    const std::string data = RandomBytes(1000000, 7);
    {
      auto file = volume->OpenFile(user, "/smoke.bin", O_CREAT | O_RDWR, 0644);
      file->Write(12345, data);
      Check(file->Read(12345, data.size()) == data, "1 MB written at an odd offset reads back");
      const std::string head = file->Read(0, 12345);
      Check(head == std::string(12345, '\0'), "the hole before the data reads as zeros");
      file->Close();
    }
    Check(volume->Getattr(user, "/smoke.bin").size_bytes() == 12345 + data.size(),
          "the MRC has the size after close");
    {
      auto file = volume->OpenFile(user, "/smoke.bin", O_RDWR, 0);
      Check(file->Read(12345, data.size()) == data, "a new handle reads the same bytes");
      file->Truncate(200000);
      Check(volume->Getattr(user, "/smoke.bin").size_bytes() == 200000, "truncate sets the MRC size");
      file->Write(400000, "tail");
      const std::string after = file->Read(0, 400004);
      Check(after.size() == 400004 && after.substr(200000, 200000) == std::string(200000, '\0') &&
                after.substr(12345, 200000 - 12345) == data.substr(0, 200000 - 12345),
            "bytes cut by truncate read as zeros after the file grows again");
      file->Fsync();
    }
    {
      auto file = volume->OpenFile(user, "/smoke.bin", O_RDWR | O_TRUNC, 0);
      Check(file->KnownSizeBytes() == 0, "open(O_TRUNC) empties the file");
      file->Write(300000, "x");
      Check(file->Read(0, 300000) == std::string(300000, '\0'), "no old bytes after open(O_TRUNC)");
    }
    volume->Mkdir(user, "/dir", 0755);
    Check(ErrnoOf([&] { volume->Mkdir(user, "/dir", 0755); }) == EEXIST, "mkdir twice is EEXIST");
    const auto listing = volume->Readdir(user, "/", 0, 0, true);
    bool saw_dir = false;
    for (const auto& entry : listing.entries()) saw_dir = saw_dir || entry.name() == "dir";
    Check(saw_dir, "readdir of / lists the new directory");
    volume->Rmdir(user, "/dir");
    volume->Unlink(user, "/smoke.bin");
    Check(ErrnoOf([&] { volume->Getattr(user, "/smoke.bin"); }) == ENOENT, "unlinked file is ENOENT");
  } catch (const std::exception& error) {
    Check(false, std::string("unexpected error: ") + error.what());
  }
  std::printf("%s: %d failure(s)\n", failures == 0 ? "OK" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
