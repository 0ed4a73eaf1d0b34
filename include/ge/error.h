// The error type of the ge C++ API.
//
// Every failure is reported with enough context to act on it: which model file,
// node name, op type, option or input it concerns. The C ABI turns these into
// status codes plus a message; no exception crosses it.
#pragma once

#include <stdexcept>
#include <string>

#include "ge/export.h"

namespace ge {

enum class ErrorCode : int {
  kOk = 0,
  kInvalidArgument = 1,   // bad option, bad input tensor, wrong shape or dtype
  kInvalidModel = 2,      // malformed or truncated model file, verifier failure
  kUnsupported = 3,       // unknown op, unsupported dtype or attribute combination
  kNotFound = 4,          // missing file, graph id, input name
  kIoError = 5,           // reading or writing a file failed
  kInternal = 6,          // a bug in ge
};

GE_API const char* ErrorCodeName(ErrorCode code);

class GE_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace ge
