// Calibration batches from .npy files: a folder, or a list file with one
// batch per line. Every tensor is checked against the model input it feeds
// (dtype, rank, static dims) so a wrong file is reported by name before any
// calibration runs.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include <fmt/core.h>

#include "ge/error.h"
#include "ge/quantize.h"
#include "graph/escape_for_message.h"
#include "graph/npy.h"
#include "graph/regular_file.h"
#include "passes/config_text.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

// Messages name files and inputs as the list file and the model spell them: escaped to stay one line.
[[noreturn]] void Fail(ErrorCode code, const std::string& message) { throw Error(code, EscapeForMessage(message)); }

void CheckFits(const Tensor& tensor, const TensorInfo& input, const std::string& file) {
  if (tensor.dtype() != input.dtype) {
    Fail(ErrorCode::kInvalidArgument, fmt::format("{}: dtype {} does not fit model input '{}' ({})", file,
                                                  DataTypeName(tensor.dtype()), input.name, DataTypeName(input.dtype)));
  }
  const Shape& want = input.shape;
  bool fits = want.unknown_rank() || want.rank() == tensor.shape().rank();
  for (size_t i = 0; fits && !want.unknown_rank() && i < want.rank(); ++i) {
    fits = want.dim(i) < 0 || want.dim(i) == tensor.shape().dim(i);
  }
  if (!fits) {
    Fail(ErrorCode::kInvalidArgument, fmt::format("{}: shape {} does not fit model input '{}' {}", file,
                                                  tensor.shape().ToString(), input.name, want.ToString()));
  }
}

std::vector<Tensor> ReadBatch(const std::vector<std::string>& files, const std::vector<TensorInfo>& inputs) {
  std::vector<Tensor> batch;
  for (size_t i = 0; i < files.size(); ++i) {
    batch.push_back(ReadNpy(files[i]));
    CheckFits(batch.back(), inputs[i], files[i]);
  }
  return batch;
}

// One batch per non-empty line; '#' starts a comment. Relative paths are
// relative to the list file's folder.
std::vector<std::vector<Tensor>> LoadFromList(const std::string& path, const std::vector<TensorInfo>& inputs) {
  const std::string text = ReadRegularFile(path, "calibration list", kMaxConfigFileBytes);
  const fs::path base = fs::path(path).parent_path();
  std::vector<std::vector<Tensor>> batches;
  size_t number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t newline = std::min(text.find('\n', start), text.size());
    std::string_view line = std::string_view(text).substr(start, newline - start);
    start = newline + 1;
    ++number;
    line = passes::TrimBlanks(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::vector<std::string> files;
    for (size_t from = 0; from <= line.size();) {
      const size_t comma = std::min(line.find(',', from), line.size());
      const fs::path file = std::string(passes::TrimBlanks(line.substr(from, comma - from)));
      files.push_back((file.is_absolute() ? file : base / file).string());
      from = comma + 1;
    }
    if (files.size() != inputs.size()) {
      Fail(ErrorCode::kInvalidArgument, fmt::format("{}:{}: {} file(s) for a model with {} input(s); list one .npy "
                                                    "per input, comma-separated, in model input order",
                                                    path, number, files.size(), inputs.size()));
    }
    batches.push_back(ReadBatch(files, inputs));
  }
  return batches;
}

// The files of one input: all .npy files for a one-input model, else those
// named "<input>_<k>.npy" or "<input>.<k>.npy".
std::vector<std::string> FilesOfInput(const std::vector<std::string>& files, const std::string& input,
                                      bool only_input) {
  std::vector<std::string> mine;
  for (const std::string& file : files) {
    const std::string stem = fs::path(file).filename().string();
    const bool named = stem.size() > input.size() && stem.compare(0, input.size(), input) == 0 &&
                       (stem[input.size()] == '_' || stem[input.size()] == '.');
    if (only_input || named) mine.push_back(file);
  }
  return mine;
}

std::vector<std::vector<Tensor>> LoadFromFolder(const std::string& path, const std::vector<TensorInfo>& inputs) {
  std::vector<std::string> files;
  std::error_code error;
  for (fs::directory_iterator it(path, error), end; !error && it != end; it.increment(error)) {
    // Anything but a regular file (a FIFO or device named x.npy) is left out; ReadNpy would refuse it.
    if (it->path().extension() == ".npy" && it->is_regular_file(error)) files.push_back(it->path().string());
  }
  if (error) {
    Fail(ErrorCode::kIoError, fmt::format("{}: cannot list the calibration folder: {}", path, error.message()));
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) Fail(ErrorCode::kNotFound, fmt::format("{}: no .npy files in the folder", path));
  std::vector<std::vector<std::string>> per_input;
  for (const TensorInfo& input : inputs) {
    per_input.push_back(FilesOfInput(files, input.name, inputs.size() == 1));
    if (per_input.back().size() != per_input.front().size() || per_input.back().empty()) {
      Fail(ErrorCode::kInvalidArgument,
           fmt::format("{}: {} file(s) for input '{}' but {} for '{}'; name them '<input>_<k>.npy'", path,
                       per_input.back().size(), input.name, per_input.front().size(), inputs.front().name));
    }
  }
  std::vector<std::vector<Tensor>> batches;
  for (size_t k = 0; k < per_input.front().size(); ++k) {
    std::vector<std::string> batch_files;
    for (const auto& input_files : per_input) batch_files.push_back(input_files[k]);
    batches.push_back(ReadBatch(batch_files, inputs));
  }
  return batches;
}

}  // namespace

std::vector<std::vector<Tensor>> LoadCalibrationData(const std::string& path, const std::vector<TensorInfo>& inputs) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) {
    Fail(ErrorCode::kNotFound, fmt::format("{}: no such calibration data", path));
  }
  auto batches = S_ISDIR(info.st_mode) ? LoadFromFolder(path, inputs) : LoadFromList(path, inputs);
  if (batches.empty()) Fail(ErrorCode::kInvalidArgument, fmt::format("{}: no calibration batches", path));
  return batches;
}

}  // namespace ge
