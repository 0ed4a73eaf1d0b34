// The .gem model file (gem.fbs): a CompiledModel saved with its optimized
// graph, weights, execution order, impl modes and memory plan, so loading it
// rebuilds only the kernels. docs/model-file.md describes the format.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/execution_plan.h"

namespace ge::runtime {

// The newest format this build reads and writes. Version 2 added dynamic
// models (an empty plan marked `dynamic`, unknown dims in values); version 3
// changed only the checksum (gem_checksum.h), which now hashes four words at
// a time. Versions 1 and 2 still load.
inline constexpr uint32_t kGemFormatVersion = 3;

// Writes "<path>.tmp" and renames it to `path`, so the file appears whole or
// not at all. Throws ge::Error (kIoError naming the path; kUnsupported for
// content the format cannot hold).
void SaveGemFile(const CompiledModel::Impl& impl, const std::string& path);

// Throw ge::Error naming the path/origin: kNotFound or kIoError when the file
// cannot be read, kInvalidModel for anything that is not a sound .gem file
// (bad magic, verifier or checksum failure, inconsistent plan), kUnsupported
// for a newer format version or a plan for another device.
// `overrides` replace stored run-time options (CheckLoadOptions).
std::unique_ptr<CompiledModel::Impl> LoadGemFile(const std::string& path, const Options& overrides);
std::unique_ptr<CompiledModel::Impl> LoadGemBuffer(const void* data, size_t size, const std::string& origin,
                                                   const Options& overrides);

}  // namespace ge::runtime
