// Calibration batches from .npy files: a folder, or a list file with one
// batch per line. Every tensor is checked against the model input it feeds
// (dtype, rank, static dims) so a wrong file is reported by name before any
// calibration runs.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "ge/error.h"
#include "ge/quantize.h"
#include "graph/npy.h"
#include "passes/config_text.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

void CheckFits(const Tensor& tensor, const TensorInfo& input, const std::string& file) {
  if (tensor.dtype() != input.dtype) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: dtype {} does not fit model input '{}' ({})", file, DataTypeName(tensor.dtype()),
                            input.name, DataTypeName(input.dtype)));
  }
  const Shape& want = input.shape;
  bool fits = want.unknown_rank() || want.rank() == tensor.shape().rank();
  for (size_t i = 0; fits && !want.unknown_rank() && i < want.rank(); ++i) {
    fits = want.dim(i) < 0 || want.dim(i) == tensor.shape().dim(i);
  }
  if (!fits) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: shape {} does not fit model input '{}' {}", file,
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
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::kIoError, fmt::format("{}: cannot read the calibration list", path));
  const fs::path base = fs::path(path).parent_path();
  std::vector<std::vector<Tensor>> batches;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    line = std::string(passes::TrimBlanks(std::string_view(line).substr(0, line.find('#'))));
    if (line.empty()) continue;
    std::vector<std::string> files;
    for (size_t start = 0; start <= line.size();) {
      const size_t comma = std::min(line.find(',', start), line.size());
      const fs::path file = std::string(passes::TrimBlanks(std::string_view(line).substr(start, comma - start)));
      files.push_back((file.is_absolute() ? file : base / file).string());
      start = comma + 1;
    }
    if (files.size() != inputs.size()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}:{}: {} file(s) for a model with {} input(s); list one .npy per input, "
                              "comma-separated, in model input order",
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
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.is_regular_file() && entry.path().extension() == ".npy") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(ErrorCode::kNotFound, fmt::format("{}: no .npy files in the folder", path));
  std::vector<std::vector<std::string>> per_input;
  for (const TensorInfo& input : inputs) {
    per_input.push_back(FilesOfInput(files, input.name, inputs.size() == 1));
    if (per_input.back().size() != per_input.front().size() || per_input.back().empty()) {
      throw Error(ErrorCode::kInvalidArgument,
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
  if (!fs::exists(path)) throw Error(ErrorCode::kNotFound, fmt::format("{}: no such calibration data", path));
  auto batches = fs::is_directory(path) ? LoadFromFolder(path, inputs) : LoadFromList(path, inputs);
  if (batches.empty()) throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: no calibration batches", path));
  return batches;
}

}  // namespace ge
