// The .npy reader (inputs of `ge run`, calibration data). It reads files, so
// each input is written to one scratch file first.
#include "fuzz_target.h"
#include "ge/error.h"
#include "graph/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = ge::fuzz::WriteScratchFile(".npy", data, size);
  try {
    ge::ReadNpy(path);
  } catch (const ge::Error& error) {
    ge::fuzz::NoteRefusal(error);
  }
  return 0;
}
