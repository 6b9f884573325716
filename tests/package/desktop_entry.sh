#!/usr/bin/env bash
# The desktop side of the package: the menu entry passes desktop-file-validate and the AppStream
# metadata `appstreamcli validate --no-net` (each where the tool is installed; `check` installs
# both), files named *.nnwb.json are of its MIME type application/x-nnwb-experiment (gio, with
# the type installed in a database of the test's own), and the entry's command `nnwb %f` opens
# the file it is given: `nnwb FILE` trains FILE's
# experiment (the run recorded under FILE's name), and a FILE that cannot be opened is an error
# naming it (exit 2) instead of the default experiment.
# Usage: desktop_entry.sh NNWB NNWB_CLI DESKTOP_FILE METAINFO
set -euo pipefail
gui="$1" cli="$2" desktop="$3" metainfo="$4"
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$desktop"; fi
if command -v appstreamcli >/dev/null; then appstreamcli validate --no-net "$metainfo" >/dev/null; fi
grep -qx 'Exec=nnwb %f' "$desktop" || { echo "$desktop: Exec is not 'nnwb %f'"; exit 1; }
grep -qx 'MimeType=application/x-nnwb-experiment;' "$desktop" || { echo "$desktop: MimeType"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The MIME type: a database of the freedesktop types and nnwb's, as the package's trigger
# builds it; gio says what a file named *.nnwb.json is (where shared-mime-info and gio are).
types=/usr/share/mime/packages/freedesktop.org.xml
if command -v update-mime-database >/dev/null && command -v gio >/dev/null && [ -f "$types" ]; then
    mkdir -p "$work/share/mime/packages"
    cp "$types" "$work/share/mime/packages/"
    cp "$(dirname "$desktop")/nnwb-mime.xml" "$work/share/mime/packages/nnwb.xml"
    update-mime-database "$work/share/mime" >/dev/null 2>&1
    echo '{"formatVersion": 2}' >"$work/x.nnwb.json"
    type="$(XDG_DATA_DIRS="$work/share" XDG_DATA_HOME="$work/none" \
        gio info -a standard::content-type "$work/x.nnwb.json" | sed -n 's/.*content-type: //p')"
    [[ "$type" == application/x-nnwb-experiment ]] || { echo "x.nnwb.json is '$type'"; exit 1; }
fi
export NNWB_RUNS_DB="$work/runs.sqlite" QT_QPA_PLATFORM=offscreen
cat >"$work/desktop-opened.json" <<'JSON'
{"formatVersion": 2, "name": "opened by the desktop",
 "data": {"source": "synthetic", "samples": 96, "units": 2, "window": 3},
 "model": {"layers": [{"type": "dense", "neurons": 4}, {"type": "dense", "neurons": 3}]},
 "training": {"epochs": 1, "batchSize": 8, "optimizer": {"type": "adam", "learningRate": 0.01}}}
JSON
"$gui" "$work/desktop-opened.json" --train-epochs 1 --screenshot "$work/shot.png" >/dev/null
"$cli" runs list --json | grep -q '"opened by the desktop"' ||
    { echo "nnwb FILE did not train FILE: $("$cli" runs list)"; exit 1; }
set +e
err="$("$gui" "$work/missing.json" --screenshot "$work/shot2.png" 2>&1 >/dev/null)"
rc=$?
set -e
[[ $rc == 2 && "$err" == *missing.json* ]] || { echo "nnwb MISSING: exit $rc, '$err'"; exit 1; }
echo "desktop entry OK"
