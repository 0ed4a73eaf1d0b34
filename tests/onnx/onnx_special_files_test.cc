// ImportOnnxFile on paths that are not regular files: refused at once, by
// name, whatever the caller (the CLI checks first; C++, C and Python callers
// reach the importer directly).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "test_support.h"

namespace ge::test {
namespace {

void RequireRefused(const std::string& path, ErrorCode code, const std::string& reason) {
  try {
    ImportOnnxFile(path);
    FAIL("imported " << path);
  } catch (const Error& e) {
    CHECK(e.code() == code);
    CHECK_THAT(e.what(), Catch::Contains(path) && Catch::Contains(reason));
  }
}

TEST_CASE("ImportOnnxFile refuses a FIFO without waiting for a writer", "[onnx][files]") {
  const std::string fifo = (TempDir("onnx_fifo") / "model.onnx").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  RequireRefused(fifo, ErrorCode::kIoError, "FIFO");
}

TEST_CASE("ImportOnnxFile refuses devices, directories and missing files by name", "[onnx][files]") {
  RequireRefused("/dev/zero", ErrorCode::kIoError, "not a regular file");
  RequireRefused(TempDir("onnx_dir").string(), ErrorCode::kIoError, "directory");
  RequireRefused((TempDir("onnx_missing") / "absent.onnx").string(), ErrorCode::kNotFound, "absent.onnx");
}

}  // namespace
}  // namespace ge::test
