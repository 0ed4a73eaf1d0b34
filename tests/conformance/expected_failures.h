// tests/conformance/expected_failures.txt: the cases known to fail, one per
// line as "<dir>/<case>  # reason". The suite fails when a case outside the
// list fails and when a listed case passes, so the list can only shrink.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace ge::conformance {

// Case key ("node/test_abs") -> reason. A missing file is an empty list.
using ExpectedFailures = std::map<std::string, std::string>;

ExpectedFailures ReadExpectedFailures(const std::filesystem::path& path);

// Writes the list sorted by key, with a header saying how it is maintained.
void WriteExpectedFailures(const std::filesystem::path& path, const ExpectedFailures& failures);

// The reason recorded for a failure message: its first line, with runs of
// whitespace collapsed, cut to about 120 characters.
std::string ReasonOf(const std::string& message);

}  // namespace ge::conformance
