// The user's ini, keep_dtype and mixlist files: what is not a regular file is
// refused without blocking, and errors that quote a line stay one escaped line.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <string>

#include "ge/error.h"
#include "passes/impl_mode_ini.h"
#include "passes/precision_lists.h"
#include "test_support.h"

namespace ge::passes {
namespace {

TEST_CASE("config files: an ini error quoting CR, escapes and binary bytes is one escaped line", "[config_text]") {
  const auto [code, message] = test::ErrorOf(
      [] { ParseImplModeFile("SoftmaxV2=high_precision\r\nRelu\rhigh\x1b[2J\xff\r\n", "modes.ini"); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK(message == "modes.ini:2: expected 'key=value', got 'Relu\\rhigh\\x1B[2J\\xFF'");
  CHECK_THAT(test::ErrorOf([] { ParseImplModeFile("[By\x07Type]\nRelu=high_precision\n", "s.ini"); }).second,
             Catch::StartsWith("s.ini:2: unknown section [By\\x07Type]"));
  CHECK_THAT(test::ErrorOf([] { ParseKeepDtype("OpType::Relu\x01\n", "keep.cfg"); }).second,
             Catch::Contains("keep.cfg:1:") && !Catch::Contains("\x01"));
}

TEST_CASE("config files: a FIFO, a device or a directory is refused by name, without blocking", "[config_text]") {
  const auto dir = test::TempDir("config_file_special");
  const std::string fifo = (dir / "fifo.ini").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(test::ErrorOf([&] { LoadImplModeFile(fifo); }) ==
        std::pair{ErrorCode::kIoError, fifo + ": cannot read config file: it is a FIFO (named pipe), not a regular file"});
  CHECK(test::ErrorOf([&] { LoadKeepDtype("/dev/zero"); }) ==
        std::pair{ErrorCode::kIoError,
                  std::string("/dev/zero: cannot read config file: it is a character device, not a regular file")});
  CHECK_THAT(test::ErrorOf([&] { LoadMixlist(dir.string()); }).second, Catch::EndsWith("it is a directory, not a regular file"));
}

}  // namespace
}  // namespace ge::passes
