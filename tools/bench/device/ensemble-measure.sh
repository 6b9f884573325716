# Issue 44 item 4 on the GPU machine (docs/ensembles.md, "Measured"): walk-forward (anchored,
# 6 folds) of the default experiment as a 16-seed ensemble (seeds 1..16; each member is that
# seed trained alone, so member 1 is "a single seed" and the members' medians are "the median
# of 16 single seeds"), on the bundled EURUSD file and on XAUUSD (the last 12,323 bars of
# ../shared/data/XAUUSD_H1.csv, as many as the bundled file has), then the training time of the
# 16-seed ensemble against one member on the CPU and on OpenCL.
#
# Run from the repository root after .device/setup.sh (sourced here when $B is unset; it sets
# $B = nnwb-cli, $P = the NVIDIA OpenCL platform). Needs nnwb-cli with walkforward --ensemble
# (this commit or later) and python3. The XAUUSD file is looked for at $DATA2, then
# .device/data/XAUUSD_H1.csv, shared/data/XAUUSD_H1.csv, ../shared/data/XAUUSD_H1.csv.
# Everything it writes is JSON under $OUT: meta.json, wf_<set>.jsonl (walkforward --json: the
# folds, the stitched record, {"ensemble": ...}), wf_<set>.time.json, timing.json, summary.json.
#
# Usage: bash tools/bench/device/ensemble-measure.sh [PART...]   PART: wf-eurusd wf-xauusd
# timing summary (default: all four, about 6-9 minutes on one H200; each part fits a 600 s call).
set -u
[ -n "${B:-}" ] || source .device/setup.sh
: "${OUT:?OUT must name the output folder}"
P=${P:-0}
D=${DEVICE:-opencl:$P:0}
N=${MEMBERS:-16}
W=/tmp/ensemble-measure
mkdir -p "$W" "$OUT"
PARTS=${*:-wf-eurusd wf-xauusd timing summary}

now() { date +%s.%N; }

# The default experiment on data file $1, written to $2 (absolute data path).
experiment() {
    python3 - "$1" "$2" <<'EOF'
import json, os, sys
e = json.load(open("resources/experiments/default.json"))
e["data"]["file"] = os.path.abspath(sys.argv[1])
json.dump(e, open(sys.argv[2], "w"), indent=1)
EOF
}

second_file() {
    for f in "${DATA2:-}" .device/data/XAUUSD_H1.csv shared/data/XAUUSD_H1.csv ../shared/data/XAUUSD_H1.csv; do
        [ -n "$f" ] && [ -f "$f" ] && { echo "$f"; return; }
    done
}

# walkforward of the N-seed ensemble on experiment $2, named $1.
walkforward() {
    local t0 rc
    t0=$(now)
    timeout 560 "$B" walkforward --experiment "$2" --scheme anchored --folds 6 \
        --population "$N" --vary "seed=1..$N" --ensemble --device "$D" --json \
        --runs-db "$W/runs-$1.sqlite" > "$OUT/wf_$1.jsonl" 2> "$W/wf_$1.err"
    rc=$?
    python3 -c 'import json,sys; print(json.dumps({"set": sys.argv[1], "device": sys.argv[2], "members": int(sys.argv[3]), "seconds": float(sys.argv[5]) - float(sys.argv[4]), "exit": int(sys.argv[6]), "stderrTail": open(sys.argv[7]).read()[-2000:]}))' \
        "$1" "$D" "$N" "$t0" "$(now)" "$rc" "$W/wf_$1.err" > "$OUT/wf_$1.time.json"
    echo "wf $1: exit $rc"; tail -3 "$W/wf_$1.err"
}

# One training of the default experiment: $1 label, $2 device, $3 epochs, then extra flags.
train_once() {
    local label=$1 dev=$2 epochs=$3 t0 rc; shift 3
    t0=$(now)
    timeout 250 "$B" train --experiment "$W/eurusd.json" --device "$dev" --epochs "$epochs" \
        --no-record --json "$@" > "$W/train_$label.jsonl" 2> "$W/train_$label.err"
    rc=$?
    python3 - "$label" "$dev" "$epochs" "$t0" "$(now)" "$rc" "$W/train_$label.jsonl" <<'EOF' >> "$W/timing.jsonl"
import json, sys
label, dev, epochs, t0, t1, rc, lines = sys.argv[1:]
secs = []
for l in open(lines):
    try:
        j = json.loads(l)
    except ValueError:
        continue
    if isinstance(j, dict) and "epoch" in j and "seconds" in j:
        secs.append((j.get("model", 1), j["epoch"], j["seconds"]))
epoch_seconds = {}
for m, e, s in secs:
    epoch_seconds[e] = s  # a population reports one time per epoch for all its models
print(json.dumps({"label": label, "device": dev, "epochs": int(epochs), "exit": int(rc),
                  "wallSeconds": float(t1) - float(t0),
                  "epochSeconds": [epoch_seconds[e] for e in sorted(epoch_seconds)]}))
EOF
    echo "train $label on $dev: exit $rc"
}

python3 -c 'import json,subprocess,sys; print(json.dumps({"commit": subprocess.run(["git","rev-parse","HEAD"],capture_output=True,text=True).stdout.strip(), "device": sys.argv[1], "members": int(sys.argv[2]), "nnwb": sys.argv[3]}))' \
    "$D" "$N" "$B" > "$OUT/meta.json"
"$B" devices > "$W/devices.txt" 2>&1 || true

experiment resources/data/EURUSD_H1_2017-2018.csv "$W/eurusd.json"
for part in $PARTS; do
    case $part in
    wf-eurusd) walkforward eurusd "$W/eurusd.json" ;;
    wf-xauusd)
        f=$(second_file)
        if [ -z "$f" ]; then echo "wf-xauusd: no XAUUSD_H1.csv (set DATA2)"; continue; fi
        { head -1 "$f"; tail -n 12323 "$f"; } > "$W/XAUUSD_H1_last12323.csv"
        experiment "$W/XAUUSD_H1_last12323.csv" "$W/xauusd.json"
        walkforward xauusd "$W/xauusd.json" ;;
    timing)
        : > "$W/timing.jsonl"
        # OpenCL: 3 epochs each; CPU: 1 epoch each (the CPU population is slow).
        train_once one-opencl "$D" 3
        train_once ensemble-opencl "$D" 3 --population "$N" --vary "seed=1..$N" --ensemble \
            --save-model "$W/e-opencl.safetensors"
        train_once one-cpu cpu 1
        train_once ensemble-cpu cpu 1 --population "$N" --vary "seed=1..$N" --ensemble \
            --save-model "$W/e-cpu.safetensors"
        python3 -c 'import json,sys; print(json.dumps([json.loads(l) for l in open(sys.argv[1])], indent=1))' \
            "$W/timing.jsonl" > "$OUT/timing.json" ;;
    summary)
        python3 - "$OUT" <<'EOF' > "$OUT/summary.json"
import glob, json, os, sys
out = sys.argv[1]
s = {}
for f in sorted(glob.glob(os.path.join(out, "wf_*.jsonl"))):
    name = os.path.basename(f)[3:-6]
    for l in open(f):
        try:
            j = json.loads(l)
        except ValueError:
            continue
        if "ensemble" in j:
            e = j["ensemble"]
            s[name] = {k: e.get(k) for k in ("members", "meanAgreement", "ensemble", "byAgreement",
                                              "singleSeed", "medianOfMembers", "bestMember")}
for f in glob.glob(os.path.join(out, "timing.json")):
    s["timing"] = json.load(open(f))
print(json.dumps(s, indent=1))
EOF
        ;;
    *) echo "unknown part $part" ;;
    esac
done
ls -la "$OUT"
