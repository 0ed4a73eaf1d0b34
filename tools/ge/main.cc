// `ge`: compile, run and inspect models from the command line (docs/cli.md).
#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "ge/error.h"
#include "graph/closest_name.h"
#include "graph/escape_for_message.h"
#include "openmp_wait.h"

namespace {

using ge::cli::Command;

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

const Command* const kCommands[] = {&ge::cli::CompileCommand(), &ge::cli::RunCommand(), &ge::cli::InfoCommand(),
                                    &ge::cli::VizCommand(), &ge::cli::QuantizeCommand(),
                                    &ge::cli::CompareCommand()};

std::string ToolHelp() {
  std::string text = "usage: ge <command> [options]\n       ge --version [--json]\n\ncommands:\n";
  for (const Command* command : kCommands) text += fmt::format("  {:<10} {}\n", command->spec.name, command->spec.summary);
  text += "\n'ge <command> --help' describes a command's options.\n";
  return text;
}

const Command& FindCommand(const std::string& name) {
  if (name == "--version" || name == "-V") return ge::cli::VersionCommand();
  std::vector<std::string> names;
  for (const Command* command : kCommands) {
    if (command->spec.name == name) return *command;
    names.push_back(command->spec.name);
  }
  std::vector<std::string> spellings = names;
  spellings.insert(spellings.end(), {"--help", "--version"});
  if (const std::optional<std::string> closest = ge::ClosestName(name, spellings)) {
    throw ge::cli::UsageError(fmt::format("unknown command '{}'; did you mean '{}'?", name, *closest));
  }
  throw ge::cli::UsageError(fmt::format("unknown command '{}'; the commands are {}", name, fmt::join(names, ", ")));
}

int Main(std::span<const char* const> args) {
  if (args.empty()) throw ge::cli::UsageError("no command given; see 'ge --help'");
  const std::string name = args[0];
  if (name == "--help" || name == "-h" || name == "help") {
    std::fputs(ToolHelp().c_str(), stdout);
    return 0;
  }
  const Command& command = FindCommand(name);
  const ge::cli::ParsedArgs parsed = ge::cli::ParseArgs(command.spec, args.subspan(1));
  if (parsed.Has("help")) {
    std::fputs(ge::cli::HelpText(command.spec).c_str(), stdout);
    return 0;
  }
  return command.run(parsed);
}

// Errors are one line, so that scripts can grep them: multi-line messages
// (lists of unsupported ops, for instance) are joined with "; ", and any other
// control byte (a message may quote a file's bytes) is escaped.
void ReportError(std::string_view message) {
  std::string line;
  for (size_t start = 0; start < message.size();) {
    const size_t newline = std::min(message.find('\n', start), message.size());
    if (!line.empty()) line += "; ";
    line += ge::EscapeForMessage(message.substr(start, newline - start));
    start = newline + 1;
  }
  std::fprintf(stderr, "ge: error: %s\n", line.c_str());
}

// An exception that is not a ge::Error is a bug in ge: reported by its kind
// (the unqualified class name, "length_error"), never by the library's own text.
std::string InternalError(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error)) return "internal error: out of memory";
  if (const auto* fs_error = dynamic_cast<const std::filesystem::filesystem_error*>(&error)) {
    return fmt::format("internal error: a file system call on '{}' failed: {}", fs_error->path1().string(),
                       fs_error->code().message());
  }
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(typeid(error).name(), nullptr, nullptr, &status), std::free);
  std::string kind = status == 0 ? demangled.get() : typeid(error).name();
  kind = kind.substr(kind.rfind("::") == std::string::npos ? 0 : kind.rfind("::") + 2);
  return fmt::format("internal error: unexpected exception '{}'; please report it", kind);
}

}  // namespace

int main(int argc, char** argv) {
  ge::cli::BoundOpenMpSpinning(argv);
  try {
    return Main(std::span<const char* const>(argv + 1, static_cast<size_t>(argc - 1)));
  } catch (const ge::cli::UsageError& e) {
    ReportError(e.what());
    return kExitUsage;
  } catch (const ge::Error& e) {
    ReportError(e.what());
    return kExitFailure;
  } catch (const std::exception& e) {
    ReportError(InternalError(e));
    return kExitFailure;
  }
}
