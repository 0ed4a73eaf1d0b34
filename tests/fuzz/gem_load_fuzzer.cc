// .gem load + one run, from the bytes of a compiled model file. The checksum
// would turn away almost every mutation before the loader's own checks, so
// the target recomputes it first (as an attacker would): what the fuzzer
// exercises is the validation of a self-consistent but hostile file.
#include "fuzz_target.h"
#include "ge/error.h"
#include "gem_checksum_fixer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> file = ge::fuzz::WithValidChecksum(data, size);
  try {
    std::shared_ptr<const ge::CompiledModel> model =
        ge::CompiledModel::LoadFromMemory(file.data(), file.size(), "fuzz.gem", {{"ge.exec.intraOpThreads", "1"}});
    ge::fuzz::RunOnZeros(*model);
  } catch (const ge::Error& error) {
    ge::fuzz::NoteRefusal(error);
  }
  return 0;
}
