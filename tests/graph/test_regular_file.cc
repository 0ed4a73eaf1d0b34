// RegularFile and ReadRegularFile: what is not a regular file is refused at
// once (a FIFO would block, /dev/zero would never end), text reads stop at
// their cap, and every error names the path and what it is.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "ge/error.h"
#include "graph/mapped_file.h"
#include "graph/regular_file.h"
#include "test_support.h"

namespace {

std::string MakeFifo(const std::string& test) {
  const std::string path = (ge::test::TempDir(test) / "fifo").string();
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  return path;
}

std::string WriteFile(const std::string& test, const std::string& bytes) {
  const std::string path = (ge::test::TempDir(test) / "file.txt").string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST_CASE("regular file: a FIFO, a device and a directory are refused without being read", "[regular_file]") {
  const std::string fifo = MakeFifo("regular_file_special");
  const std::string dir = ge::test::TempDir("regular_file_dir").string();
  for (const auto& [path, kind] : {std::pair{fifo, std::string("a FIFO (named pipe)")},
                                   std::pair{std::string("/dev/zero"), std::string("a character device")},
                                   std::pair{dir, std::string("a directory")}}) {
    const std::string expected = path + ": cannot read quant config: it is " + kind + ", not a regular file";
    CHECK(ge::test::ErrorOf([&] { ge::RegularFile::Open(path, "quant config"); }) ==
          std::pair{ge::ErrorCode::kIoError, expected});
    CHECK(ge::test::ErrorOf([&] { ge::ReadRegularFile(path, "quant config", ge::kMaxConfigFileBytes); }) ==
          std::pair{ge::ErrorCode::kIoError, expected});
    const auto [code, message] = ge::test::ErrorOf([&] { ge::MappedFile::Open(path); });
    CHECK(code == ge::ErrorCode::kIoError);
    CHECK(message == path + ": cannot read model file: it is " + kind + ", not a regular file");
  }
}

TEST_CASE("regular file: a missing file is kNotFound naming it", "[regular_file]") {
  const std::string missing = (ge::test::TempDir("regular_file_missing") / "nope.ini").string();
  CHECK(ge::test::ErrorOf([&] { ge::ReadRegularFile(missing, "config file", 100); }) ==
        std::pair{ge::ErrorCode::kNotFound, missing + ": cannot read config file: No such file or directory"});
}

TEST_CASE("regular file: a text file is read whole up to its cap, and refused past it", "[regular_file]") {
  const std::string path = WriteFile("regular_file_cap", std::string(4096 + 17, 'x'));
  CHECK(ge::ReadRegularFile(path, "config file", 4096 + 17) == std::string(4096 + 17, 'x'));
  CHECK(ge::test::ErrorOf([&] { ge::ReadRegularFile(path, "config file", 4096 + 16); }) ==
        std::pair{ge::ErrorCode::kIoError,
                  path + ": cannot read config file: it has more than 4112 bytes, the most a config file may have"});
  CHECK(ge::ReadRegularFile(WriteFile("regular_file_empty", ""), "config file", 10).empty());
}

TEST_CASE("regular file: reads at an offset, and a read past the end names the file", "[regular_file]") {
  const std::string path = WriteFile("regular_file_read_at", "0123456789");
  const ge::RegularFile file = ge::RegularFile::Open(path, ".npy file");
  CHECK(file.size() == 10);
  char bytes[4] = {};
  file.ReadAt(3, bytes, 4);
  CHECK(std::string(bytes, 4) == "3456");
  const auto [code, message] = ge::test::ErrorOf([&] { file.ReadAt(8, bytes, 4); });
  CHECK(code == ge::ErrorCode::kIoError);
  CHECK_THAT(message, Catch::StartsWith(path + ": cannot read .npy file: the file ended at byte 10"));
}
