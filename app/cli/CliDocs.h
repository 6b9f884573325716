// The manual page nnwb-cli(1) and the bash completion script, generated from the same CLI11
// definitions as `--help` (the hidden commands `nnwb-cli help-man` and `help-completion`; the
// build writes both, so they never drift from the help). CLI main thread; Qt-free.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace nnwb::cli {

class HelpFormatter;

// roff (man(7)) text of nnwb-cli(1): every listed command with its usage, description, flags
// and exit status, taken from `root` as the help shows them.
std::string manPage(const CLI::App& root, const HelpFormatter& help, const std::string& version);

// A bash completion script for nnwb-cli: the commands, each command's flags (and --version at
// the top), file names after a flag that takes a value.
std::string bashCompletion(const CLI::App& root);

}  // namespace nnwb::cli
