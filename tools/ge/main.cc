// `ge`: compile, run and inspect models from the command line (docs/cli.md).
#include <cstdio>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "ge/error.h"
#include "graph/closest_name.h"
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

// Errors are one line, so that scripts can grep them; multi-line messages
// (lists of unsupported ops, for instance) are joined with "; ".
void ReportError(const char* message) {
  std::string line;
  for (const char* c = message; *c != '\0'; ++c) {
    if (*c != '\n') {
      line += *c;
    } else if (c[1] != '\0') {
      line += "; ";
    }
  }
  std::fprintf(stderr, "ge: error: %s\n", line.c_str());
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
    ReportError(e.what());
    return kExitFailure;
  }
}
