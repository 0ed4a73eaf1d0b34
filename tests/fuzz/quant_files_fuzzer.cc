// The quantization files in protobuf text format: the AMCT-style config and
// the quantization record. The first byte picks the reader, the rest is the
// file's text.
#include <string>

#include "fuzz_target.h"
#include "ge/error.h"
#include "quant/quant_config.h"
#include "quant/quant_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (data[0] % 2 == 0) {
      ge::quant::ParseQuantConfig(text, "fuzz.cfg");
    } else {
      ge::quant::ParseQuantRecord(text, "fuzz_record.txt");
    }
  } catch (const ge::Error& error) {
    ge::fuzz::NoteRefusal(error);
  }
  return 0;
}
