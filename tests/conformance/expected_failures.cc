#include "expected_failures.h"

#include <fmt/format.h>

#include <fstream>

#include "ge/error.h"

namespace ge::conformance {
namespace {

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

}  // namespace

ExpectedFailures ReadExpectedFailures(const std::filesystem::path& path) {
  ExpectedFailures failures;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    const std::string key = Trim(line.substr(0, hash));
    if (key.empty()) continue;  // a comment or blank line
    failures[key] = hash == std::string::npos ? "" : Trim(line.substr(hash + 1));
  }
  return failures;
}

void WriteExpectedFailures(const std::filesystem::path& path, const ExpectedFailures& failures) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary);
    out << "# Conformance cases that fail today, one per line: <dir>/<case>  # reason.\n"
           "# The suite fails when a listed case passes (remove it) or an unlisted one fails.\n"
           "# Regenerate with: ge_conformance --update-expected node simple pytorch-converted pytorch-operator\n";
    for (const auto& [key, reason] : failures) out << key << "  # " << reason << "\n";
    if (!out) throw Error(ErrorCode::kIoError, fmt::format("{}: cannot write", temporary.string()));
  }
  std::filesystem::rename(temporary, path);
}

std::string ReasonOf(const std::string& message) {
  std::string reason;
  for (char c : message.substr(0, message.find('\n'))) {
    const bool space = c == ' ' || c == '\t' || c == '\r';
    if (space && (reason.empty() || reason.back() == ' ')) continue;
    reason += space ? ' ' : c;
  }
  constexpr size_t kMaxReason = 120;
  if (reason.size() > kMaxReason) reason = reason.substr(0, kMaxReason - 3) + "...";
  while (!reason.empty() && reason.back() == ' ') reason.pop_back();
  return reason;
}

}  // namespace ge::conformance
