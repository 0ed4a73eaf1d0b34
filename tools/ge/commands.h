// The `ge` subcommands. main() parses the arguments after the command name
// against its spec; `run` prints the result on stdout and returns the exit
// status. Failures are thrown (ge::Error, UsageError) and reported by main().
#pragma once

#include "args.h"

namespace ge::cli {

struct Command {
  CommandSpec spec;
  int (*run)(const ParsedArgs& args);
};

const Command& CompileCommand();
const Command& RunCommand();
const Command& InfoCommand();
const Command& VizCommand();
const Command& QuantizeCommand();
const Command& CompareCommand();
// `ge --version` (also -V): not listed among the commands, but parsed like one.
const Command& VersionCommand();

}  // namespace ge::cli
