#!/usr/bin/env bash
# nnwb-cli(1) and the bash completion cover the whole command line: every command that
# `nnwb-cli --help` lists has its section in the manual page (what the build generates with
# `nnwb-cli help-man`), and each of its flags from `nnwb-cli COMMAND --help` is in that page and
# is offered by the completion (`nnwb-cli help-completion`, run in bash as a user's Tab would);
# `nnwb-cli s<Tab>` offers sweep; nnwb(1) (written by hand) names every option of `nnwb --help`.
# Usage: cli_docs.sh NNWB_CLI PACKAGING_BUILD_DIR NNWB|"" NNWB_1
set -euo pipefail
cli="$1" out="$2" gui="$3" nnwb1="$4"
man="$(gzip -dc "$out/nnwb-cli.1.gz")"
[[ "$man" == "$("$cli" help-man)" ]] || { echo "$out/nnwb-cli.1.gz is not what help-man prints"; exit 1; }
# shellcheck disable=SC1091
source "$out/nnwb-cli.bash-completion"
# complete WORD...: what the completion offers for the last word after `nnwb-cli WORD...`.
complete_words() {
    COMP_WORDS=(nnwb-cli "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _nnwb_cli
    printf '%s\n' "${COMPREPLY[@]}"
}
# The flags of a help's option list ("  -h,--help", "  --model M ...", "  -v, --version").
flags_listed() {
    grep -oE '^ {2,4}(-[a-zA-Z], ?)?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}
complete_words s | grep -qx sweep || { echo "completion: 'nnwb-cli s' does not offer sweep"; exit 1; }
# The commands: the help's command lines ("  sweep run SPEC ...") up to their first non-word.
mapfile -t commands < <("$cli" --help | sed -n '/^Commands:/,$p' |
    grep -oE '^  [a-z][a-z0-9-]*( [a-z][a-z0-9-]*)*' | sed 's/^  //' | sort -u)
[ "${#commands[@]}" -ge 10 ] || { echo "too few commands found in --help: ${commands[*]}"; exit 1; }
checked=0
for cmd in "${commands[@]}"; do
    section=".SS \"nnwb-cli $cmd\""
    grep -qF "${section//-/\\-}" <<<"$man" || { echo "nnwb-cli.1 has no section for '$cmd'"; exit 1; }
    read -r -a words <<<"$cmd"
    offered="$(complete_words "${words[@]}" --)$'\n'$(complete_words "${words[@]}" -)"
    # shellcheck disable=SC2086
    for flag in $("$cli" $cmd --help | flags_listed); do
        grep -qF -- "${flag//-/\\-}" <<<"$man" || { echo "nnwb-cli.1 lacks $flag of '$cmd'"; exit 1; }
        grep -qx -- "$flag" <<<"$offered" ||
            { echo "completion of 'nnwb-cli $cmd -' does not offer $flag"; exit 1; }
        checked=$((checked + 1))
    done
done
if [[ -n "$gui" ]]; then
    for flag in $(QT_QPA_PLATFORM=offscreen "$gui" --help | flags_listed); do
        grep -qF -- "${flag//-/\\-}" "$nnwb1" || { echo "$nnwb1 lacks $flag of nnwb --help"; exit 1; }
    done
fi
echo "manual page and completion: ${#commands[@]} commands, $checked flags"
