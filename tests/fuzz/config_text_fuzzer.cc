// The hand-edited text files of compile options: op_precision_mode /
// impl-mode ini files, all_ops_impl_mode.ini, keep_dtype lists and mixlist
// JSON. The first byte picks the reader, the rest is the file's text.
#include <string_view>

#include "fuzz_target.h"
#include "ge/error.h"
#include "passes/impl_mode_ini.h"
#include "passes/precision_lists.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 4) {
      case 0: ge::passes::ParseImplModeFile(text, "fuzz.ini"); break;
      case 1: ge::passes::ParseOpImplModes(text, "all_ops_impl_mode.ini"); break;
      case 2: ge::passes::ParseKeepDtype(text, "keep_dtype.cfg"); break;
      default: ge::passes::ParseMixlist(text, "mixlist.json"); break;
    }
  } catch (const ge::Error& error) {
    ge::fuzz::NoteRefusal(error);
  }
  return 0;
}
