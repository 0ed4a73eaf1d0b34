// What every fuzz target shares (docs/reliability.md).
//
// A target is one LLVMFuzzerTestOneInput over the bytes of one kind of file.
// Its contract: ge either accepts the bytes or throws ge::Error; any other
// exception, a crash, a sanitizer report, a leak or a hang is a finding. So
// targets catch ge::Error only: anything else escapes to libFuzzer (or to the
// replay program), which reports it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ge/compiled_model.h"
#include "ge/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace ge::fuzz {

// Compile and load options that keep one execution small: one intra-op
// thread, and a tensor byte cap far below libFuzzer's memory limit, so a
// model that asks for gigabytes is refused at compile time like any other
// model over the cap.
const Options& SmallRunOptions();

// A refused input is the expected outcome for most mutations; with
// GE_FUZZ_VERBOSE set, its message goes to stderr (to see what seeds reach).
void NoteRefusal(const Error& error);

// A scratch file named "input<suffix>" in a folder of its own (in memory where
// there is a tmpfs: a million writes should not reach a disk), holding
// `size` bytes of `data`; removed at exit. For readers that take a path, or
// pick the format by the extension. Nothing else is in the folder, so a
// model that names other files (weight shards) finds none.
const std::string& WriteScratchFile(const std::string& suffix, const uint8_t* data, size_t size);

// Runs the model once on zero-filled inputs, unknown dims taken as 1; skips
// models whose inputs are strings or over 16 MiB, and those whose
// convolutions and products at static shapes would do over 2^33
// multiply-adds. Errors the run reports are ge::Error.
void RunOnZeros(const CompiledModel& model);

}  // namespace ge::fuzz
