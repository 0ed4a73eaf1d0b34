// MappedFile: a read-only mapping whose released pages read back unchanged.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "ge/error.h"
#include "graph/mapped_file.h"
#include "test_support.h"

namespace {

std::filesystem::path WriteFile(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Several pages of a pattern that differs from page to page and byte to byte.
std::vector<uint8_t> Pattern(size_t bytes) {
  std::vector<uint8_t> pattern(bytes);
  for (size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<uint8_t>((i * 131 + i / 4096) % 251);
  return pattern;
}

}  // namespace

TEST_CASE("mapped file: contents, and pages released in the middle read back unchanged", "[mapped_file]") {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const std::vector<uint8_t> bytes = Pattern(5 * page + 123);
  const auto path = WriteFile(ge::test::TempDir("mapped_file_release") / "weights.bin", bytes);
  const auto file = ge::MappedFile::Open(path.string());
  REQUIRE(file->size() == bytes.size());
  CHECK(std::equal(bytes.begin(), bytes.end(), file->data()));

  // A range starting and ending inside pages: only the whole pages between go.
  file->ReleasePages(file->data() + page / 2, 3 * page);
  file->ReleasePages(file->data(), file->size());
  CHECK(std::equal(bytes.begin(), bytes.end(), file->data()));

  CHECK(file->Contains(file->data()));
  CHECK(file->Contains(file->data() + file->size() - 1));
  CHECK_FALSE(file->Contains(file->data() + file->size()));
  CHECK_FALSE(file->Contains(bytes.data()));
  file->ReleasePages(bytes.data(), bytes.size());  // not in the mapping: nothing happens
  CHECK(bytes == Pattern(bytes.size()));
}

TEST_CASE("mapped file: an empty file maps to nothing", "[mapped_file]") {
  const auto path = WriteFile(ge::test::TempDir("mapped_file_empty") / "empty.bin", {});
  const auto file = ge::MappedFile::Open(path.string());
  CHECK(file->size() == 0);
  CHECK(file->data() == nullptr);
  CHECK_FALSE(file->Contains(path.c_str()));
}

TEST_CASE("mapped file: missing files and folders are errors naming the path", "[mapped_file]") {
  const auto dir = ge::test::TempDir("mapped_file_errors");
  const std::string missing = (dir / "missing.bin").string();
  const auto [missing_code, missing_message] = ge::test::ErrorOf([&] { ge::MappedFile::Open(missing); });
  CHECK(missing_code == ge::ErrorCode::kNotFound);
  CHECK_THAT(missing_message, Catch::Contains(missing) && Catch::Contains("cannot read model file"));
  const auto [folder_code, folder_message] = ge::test::ErrorOf([&] { ge::MappedFile::Open(dir.string()); });
  CHECK(folder_code == ge::ErrorCode::kIoError);
  CHECK_THAT(folder_message, Catch::Contains(dir.string()) && Catch::Contains("not a regular file"));
}
