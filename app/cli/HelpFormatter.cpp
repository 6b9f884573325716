#include "app/cli/HelpFormatter.h"

#include <sstream>

namespace nnwb::cli {

namespace {

constexpr size_t kWidth = 100;  // the help's lines are at most this wide
constexpr size_t kColumn = 30;  // where a flag's help starts
constexpr size_t kListed = 6;   // indentation of a command's summary in a list of commands

// `text` in lines of at most `width` characters, each led by `indent`; its own line breaks stay.
std::string wrap(const std::string& text, size_t width, const std::string& indent = {}) {
    std::string out;
    std::istringstream paragraphs(text);
    std::string paragraph;
    while (std::getline(paragraphs, paragraph)) {
        std::istringstream words(paragraph);
        std::string word, line;
        while (words >> word) {
            if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
                out += indent + line + "\n";
                line.clear();
            }
            line += (line.empty() ? "" : " ") + word;
        }
        out += (line.empty() ? std::string() : indent + line) + "\n";
    }
    return out;
}

// A form's words: spaces inside [...] or (...) do not split ("[--batch N|dynamic]" is one word).
std::vector<std::string> words(const std::string& form) {
    std::vector<std::string> out;
    std::string word;
    int depth = 0;
    for (char c : form) {
        if (c == ' ' && depth == 0) {
            if (!word.empty()) out.push_back(word);
            word.clear();
            continue;
        }
        depth += c == '[' || c == '(' ? 1 : c == ']' || c == ')' ? -1 : 0;
        word += c;
    }
    if (!word.empty()) out.push_back(word);
    // A flag and its value stay together ("--mql5 DIR").
    std::vector<std::string> joined;
    for (const std::string& w : out) {
        if (!joined.empty() && joined.back().rfind("--", 0) == 0 &&
            joined.back().find(' ') == std::string::npos &&
            std::string("-[(").find(w[0]) == std::string::npos)
            joined.back() += " " + w;
        else
            joined.push_back(w);
    }
    return joined;
}

// The value part of a type name ("N" of "N:1..65536") and the validators' part ("1..65536").
std::pair<std::string, std::string> typeParts(const CLI::Option* opt) {
    const std::string type = opt->get_type_name();
    const size_t colon = type.find(':');
    if (colon == std::string::npos) return {type, {}};
    return {type.substr(0, colon), type.substr(colon + 1)};
}

bool repeats(const CLI::Option* opt) {
    return opt->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
}

// "--device ID ...", "--json", "FILE", "ID ...".
std::string synopsisWord(const CLI::Option* opt) {
    std::string word;
    if (opt->get_positional()) {
        if (!opt->get_option_text().empty()) return opt->get_option_text();  // "A B [...]"
        word = opt->get_name();
    } else {
        word = opt->get_name();
        const std::string value = typeParts(opt).first;  // none for a flag
        if (!value.empty()) word += " " + value;
    }
    if (repeats(opt) || opt->get_expected_max() > 1) word += " ...";
    return opt->get_required() ? word : "[" + word + "]";
}

std::vector<const CLI::App*> listed(const CLI::App* app) {
    return app->get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::string firstLine(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

}  // namespace

HelpFormatter::HelpFormatter() {
    column_width(kColumn);
    label("Positionals", "Arguments");
}

void HelpFormatter::setForms(const CLI::App* command, std::vector<std::string> forms) {
    forms_[command] = std::move(forms);
}

std::vector<std::vector<std::string>> HelpFormatter::forms(const CLI::App* app) const {
    std::vector<std::vector<std::string>> out;
    const auto given = forms_.find(app);
    if (given != forms_.end()) {
        for (const std::string& f : given->second) out.push_back(words(f));
        return out;
    }
    std::vector<std::string> form;
    for (const CLI::Option* opt : app->get_options(
             [](const CLI::Option* o) { return o->get_positional() && !o->get_group().empty(); }))
        form.push_back(synopsisWord(opt));
    for (const CLI::Option* opt : app->get_options([app](const CLI::Option* o) {
             return o->nonpositional() && o != app->get_help_ptr() && !o->get_group().empty();
         }))
        form.push_back(synopsisWord(opt));
    out.push_back(form);
    return out;
}

std::vector<std::string> HelpFormatter::usageLines(const CLI::App* app, const std::string& name,
                                                   size_t indent) const {
    std::vector<std::string> lines;
    const std::string under(indent + name.size() + 1, ' ');
    for (const std::vector<std::string>& form : forms(app)) {
        std::string line = std::string(indent, ' ') + name;
        for (const std::string& w : form) {
            if (line.size() + 1 + w.size() > kWidth && line.size() > under.size()) {
                lines.push_back(line);
                line = under.substr(0, under.size() - 1);
            }
            line += " " + w;
        }
        lines.push_back(line);
    }
    return lines;
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
    if (!listed(app).empty()) return "usage: " + name + " COMMAND [options]\n";
    std::string out;
    for (std::string line : usageLines(app, name, 7)) {
        if (out.empty()) line.replace(0, 7, "usage: ");
        out += line + "\n";
    }
    return out;
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name,
                                     CLI::AppFormatMode mode) const {
    std::string help = make_usage(app, name) + make_description(app) + make_positionals(app) +
                       make_groups(app, mode) + make_subcommands(app, mode) + make_footer(app);
    for (size_t gap; (gap = help.find("\n\n\n")) != std::string::npos;) help.erase(gap, 1);
    return help;
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
    return wrap(app->get_description(), kWidth);
}

// Each command's usage and the first line of what it does; a command with commands of its own
// (runs) lists those.
std::string HelpFormatter::make_subcommands(const CLI::App* app, CLI::AppFormatMode) const {
    const std::vector<const CLI::App*> subs = listed(app);
    if (subs.empty()) return {};
    std::string out = "\nCommands:\n";
    const std::string prefix = app->get_parent() ? app->get_name() + " " : std::string();
    for (const CLI::App* sub : subs) {
        std::vector<std::pair<const CLI::App*, std::string>> entries;
        for (const CLI::App* inner : listed(sub))
            entries.emplace_back(inner, prefix + sub->get_name() + " " + inner->get_name());
        if (entries.empty()) entries.emplace_back(sub, prefix + sub->get_name());
        for (const auto& [cmd, name] : entries) {
            for (const std::string& line : usageLines(cmd, name, 2)) out += line + "\n";
            out += wrap(firstLine(cmd->get_description()), kWidth, std::string(kListed, ' '));
        }
    }
    return out;
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
    return app->get_footer().empty() ? std::string() : "\n" + wrap(app->get_footer(), kWidth);
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
    const std::string value = typeParts(opt).first;  // none for a flag
    if (opt->get_positional() || value.empty()) return {};
    return " " + value + (repeats(opt) ? " ..." : "");
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
    std::string desc = opt->get_description(), notes = typeParts(opt).second;  // "1..65536"
    if (!opt->get_default_str().empty())
        notes += (notes.empty() ? "default " : ", default ") + opt->get_default_str();
    if (!notes.empty()) desc += " (" + notes + ")";
    if (repeats(opt)) desc += "; may be given more than once";
    std::string out = wrap(desc, kWidth - kColumn);
    if (!out.empty()) out.pop_back();  // format_help ends the line
    return out;
}

}  // namespace nnwb::cli
