#!/usr/bin/env bash
# The installed tree works on its own: installs the build into PREFIX (cmake --install), then,
# from a fresh directory outside the source and build trees, the installed nnwb-cli prints the
# version, trains the installed default experiment (its data found relative to it, under
# PREFIX/share/nnwb/resources) for one epoch, and looks for presets in the installed tree; with
# the GUI built, the installed nnwb prints its version too.
# Usage: install_tree.sh CMAKE BUILD_DIR PREFIX VERSION GUI(ON|OFF)
set -euo pipefail
cmake="$1" build="$2" prefix="$3" version="$4" gui="$5"
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
res="$prefix/share/nnwb/resources"
for f in "$prefix/bin/nnwb-cli" "$res/experiments/default.json" "$res/NOTICE" \
         "$res/data/EURUSD_H1_2017-2018.csv" "$res/presets/gpt-block.json" \
         "$prefix/share/nnwb/README.md"; do
    [[ -e "$f" ]] || { echo "not installed: $f"; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
out="$("$prefix/bin/nnwb-cli" --version)"
[[ "$out" == "nnwb-cli $version" ]] || { echo "nnwb-cli --version: '$out'"; exit 1; }
"$prefix/bin/nnwb-cli" train --experiment "$res/experiments/default.json" --epochs 1
# A preset name is looked for in the installed tree's presets/ first (after $NNWB_RESOURCE_DIR).
set +e
err="$(env -u NNWB_RESOURCE_DIR "$prefix/bin/nnwb-cli" compare no-such-preset other 2>&1)"
set -e
grep -qF "$res/presets/no-such-preset.json" <<<"$err" ||
    { echo "the installed presets folder was not searched: $err"; exit 1; }
if [[ "$gui" == ON ]]; then
    out="$("$prefix/bin/nnwb" --version)"
    [[ "$out" == "nnwb $version" ]] || { echo "nnwb --version: '$out'"; exit 1; }
fi
echo "installed tree OK: $prefix"
