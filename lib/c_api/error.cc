// Status codes, the thread-local error message and the test-only failure hook.
#include <new>
#include <stdexcept>

#include "c_api_internal.h"

namespace {

thread_local std::string last_error;
thread_local int injected_failure = 0;

}  // namespace

namespace ge::capi {

ge_status Fail(ge_status status, const std::string& message) {
  try {
    last_error = message;
  } catch (...) {
    last_error.clear();  // no memory for the message: the status still says what happened
  }
  return status;
}

void ClearError() { last_error.clear(); }

ge_status StatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return GE_OK;
    case ErrorCode::kInvalidArgument: return GE_INVALID_ARGUMENT;
    case ErrorCode::kInvalidModel: return GE_INVALID_MODEL;
    case ErrorCode::kUnsupported: return GE_UNSUPPORTED;
    case ErrorCode::kNotFound: return GE_NOT_FOUND;
    case ErrorCode::kIoError: return GE_IO_ERROR;
    case ErrorCode::kInternal: return GE_INTERNAL;
  }
  return GE_INTERNAL;
}

void ThrowInjectedFailure() {
  const int kind = injected_failure;
  injected_failure = 0;
  switch (kind) {
    case 1: throw Error(ErrorCode::kInternal, "injected failure");
    case 2: throw std::bad_alloc();
    case 3: throw std::runtime_error("injected failure");
    case 4: throw 42;  // not a std::exception
    default: return;
  }
}

}  // namespace ge::capi

extern "C" {

const char* ge_last_error(void) { return last_error.c_str(); }

const char* ge_status_name(ge_status status) {
  switch (status) {
    case GE_OK: return "GE_OK";
    case GE_INVALID_ARGUMENT: return "GE_INVALID_ARGUMENT";
    case GE_INVALID_MODEL: return "GE_INVALID_MODEL";
    case GE_UNSUPPORTED: return "GE_UNSUPPORTED";
    case GE_NOT_FOUND: return "GE_NOT_FOUND";
    case GE_IO_ERROR: return "GE_IO_ERROR";
    case GE_INTERNAL: return "GE_INTERNAL";
    case GE_OUT_OF_MEMORY: return "GE_OUT_OF_MEMORY";
  }
  return "GE_UNKNOWN_STATUS";
}

ge_status ge_test_inject_failure(int kind) {
  if (kind < 0 || kind > 4) {
    return ge::capi::Fail(GE_INVALID_ARGUMENT,
                          "ge_test_inject_failure: kind " + std::to_string(kind) + " is not 0..4");
  }
  injected_failure = kind;
  ge::capi::ClearError();
  return GE_OK;
}

}  // extern "C"
