#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root, or with sudo available):
#   scripts/nnwb.sh run    install what is missing, build, open the workbench
#   scripts/nnwb.sh test   install what is missing, build, run the whole test suite (ctest)
#   scripts/nnwb.sh package  install what is missing, build, write build/nnwb_VERSION_amd64.deb
#   scripts/nnwb.sh check  reliability checks: formatting, ASan + UBSan suite, fuzzers, GUI monkey,
#                          TSan threaded tests, stores under stress, OpenCL kernels under oclgrind,
#                          the Debian package installed, used and purged (label package);
#                          the slow parts rotate with the commit count (one sanitizer build per
#                          run: ASan part 0, 1 or 2 of the test programs, TSan; fuzz and monkey
#                          seeds; the oclgrind slice), so any 4 consecutive commits run all of them
#   scripts/nnwb.sh check-long  the same at full length (10,000 monkey actions over the fixed
#                          seeds, 5 minutes per fuzzer, every oclgrind case, the whole ASan suite)
#   scripts/nnwb.sh asan   AddressSanitizer + UBSan build of the whole test suite (part of check;
#                          NNWB_ASAN_PART=k/n: the part k of n that check's rotation runs)
#   scripts/nnwb.sh tsan   ThreadSanitizer build of the threaded tests (part of check)
#   scripts/nnwb.sh format formats every tracked C++ file with clang-format (.clang-format)
#   scripts/nnwb.sh format-check  fails when a tracked C++ file is not formatted (part of check)
# Builds are CMake presets (CMakePresets.json: release, asan, tsan, release-noqt); each step
# prints its wall time as it ends, and the run ends with a table of them. A second run installs
# nothing and rebuilds only what changed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
build="${NNWB_BUILD_DIR:-build}"
mode="${1:-}"

packages=(build-essential cmake ninja-build pkg-config qt6-base-dev libqcustomplot-dev
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo nlohmann-json3-dev xvfb xauth
          libonnx-dev libprotobuf-dev libsqlite3-dev libsqlitecpp-dev libcli11-dev nettle-dev
          libgtest-dev munge slurmctld slurmd slurm-client rsync)

# For the tests (`test`, `check`, `asan`): Debian's chromium, the headless browser that opens the
# HTML report in tst_report_export (issue 43 asks for a real browser; the test skips without it).
test_packages=(chromium)

# Only for `check`: clang with its sanitizer and libFuzzer runtimes, llvm-symbolizer, oclgrind;
# for the package test, lintian, the desktop and AppStream validators, and man.
check_packages=(clang libclang-rt-14-dev llvm oclgrind clang-format lintian desktop-file-utils
                appstream man-db)

# Whether `check` runs the clang-format gate (format-check) as its first step.
format_gate=1

install_missing() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# onnxruntime 1.14 for the ONNX export tests (label onnx): the npm package onnxruntime-node,
# pinned in tests/onnx/runtime/package-lock.json, into tests/onnx/runtime/node_modules (ignored).
# Skipped at once when that version is already there. Debian's nodejs and npm are installed
# only where the npm command is missing (node may come from another package).
install_onnxruntime_node() {
    local dir="tests/onnx/runtime"
    local want
    want="$(sed -n 's/.*"onnxruntime-node": *"\([0-9.]*\)".*/\1/p' "$dir/package.json")"
    if [ -f "$dir/node_modules/onnxruntime-node/package.json" ] &&
        grep -q "\"version\": *\"$want\"" "$dir/node_modules/onnxruntime-node/package.json"; then
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
        install_missing nodejs npm
    fi
    echo "== installing onnxruntime-node $want into $dir/node_modules"
    # The package bundles the CPU runtime for linux-x64; skip its optional GPU download step.
    ONNXRUNTIME_NODE_INSTALL=skip npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
}

# Step timing: `step NAME` ends the step before it (printing its wall time) and starts NAME;
# the run's last line is a table of every step's seconds (also when a step fails).
step_names=()
step_secs=()
step_start=0
step_name=""
run_start=$(date +%s)
end_step() {
    [ -z "$step_name" ] && return 0
    local secs=$(($(date +%s) - step_start))
    step_names+=("$step_name")
    step_secs+=("$secs")
    echo "== $(date +%T) done in ${secs} s: $step_name"
    step_name=""
}
step() {
    end_step
    step_name="$*"
    step_start=$(date +%s)
    echo "== $(date +%T) $*"
}
step_table() {
    local rc=$?
    end_step
    [ ${#step_names[@]} -eq 0 ] && return $rc
    echo "== step times (wall seconds, $(nproc) cores)$([ $rc -ne 0 ] && echo ", FAILED with exit $rc"):"
    local i
    for i in "${!step_names[@]}"; do
        printf '==   %6d  %s\n' "${step_secs[$i]}" "${step_names[$i]}"
    done
    printf '==   %6d  total\n' "$(($(date +%s) - run_start))"
    return $rc
}
trap step_table EXIT

# configure PRESET [CMAKE_ARGS...]: configures a preset's build folder (CMakePresets.json).
# A folder configured earlier with another generator (the Makefiles of older versions of this
# script) is configured afresh. Arguments after the preset (-D...) are passed on every call.
configure() {
    local preset="$1"
    shift
    local dir
    dir="$(preset_dir "$preset")"
    if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt" &&
        [ "$preset" != release-noqt ]; then
        echo "== $dir was configured with another generator: configuring it afresh"
        rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
    fi
    # A configure cut short leaves a cache without the build files: configure again then.
    local buildfile=build.ninja
    [ "$preset" = release-noqt ] && buildfile=Makefile
    if [ ! -f "$dir/CMakeCache.txt" ] || [ ! -f "$dir/$buildfile" ] || [ $# -gt 0 ]; then
        cmake --preset "$preset" -B "$dir" "$@" >/dev/null
    fi
}
preset_dir() {
    case "$1" in
        release) echo "$build" ;;
        *) echo "build-${1}" ;;
    esac
}
build_preset() {
    local preset="$1"
    shift
    cmake --build "$(preset_dir "$preset")" -j "$(nproc)" "$@"
}
configure_and_build() {
    configure release
    build_preset release
}

# The Debian package of the Release build: cpack (cmake/Packaging.cmake) after building what it
# installs, not the tests. Writes $build/nnwb_VERSION_amd64.deb.
build_package() {
    configure release
    build_preset release --target nnwb nnwb-cli nnwb_cli_docs
    (cd "$build" && cpack -G DEB)
}

# The package test (label package, tests/package/package_deb.sh): the .deb built, checked by
# lintian, desktop-file-validate and appstreamcli, installed, used by a new unprivileged user and
# purged. As root only.
run_package_test() {
    step "package: .deb built, validated, installed, used as a user, purged"
    configure release
    build_preset release --target nnwb nnwb-cli nnwb_cli_docs
    desktop-file-validate resources/packaging/nnwb.desktop
    appstreamcli validate --no-net "$build"/packaging/*.metainfo.xml
    (cd "$build" && ctest --output-on-failure -L '^package$' --no-tests=error)
}

# What rotates with the commit in `check`: the two monkey seeds, the fuzzers' seed and the
# oclgrind slice (k of 4 by the number of commits, so any 4 consecutive commits together run
# every oclgrind case). Outside a git checkout everything is seed 1 / slice 0.
commit_hash() { git rev-parse HEAD 2>/dev/null || echo 0000000000000000000000000000000000000001; }
commit_count() { git rev-list --count HEAD 2>/dev/null || echo 0; }
hex_seed() { echo $((16#${1} % 2147483647 + 1)); }
oclgrind_slices=4

# The tracked C++ sources (what the formatting gate covers; kernels/*.cl are left as written).
cxx_files() { git ls-files -z -- '*.cpp' '*.h'; }

run_format() {
    step "format: clang-format -i on every tracked C++ file"
    cxx_files | xargs -0 clang-format -i
}

# Fails, listing the files, when clang-format would change a tracked C++ file.
run_format_check() {
    step "format-check: clang-format --dry-run -Werror"
    # All files in batches on every core; only when that fails, one by one to list them.
    cxx_files | xargs -0 -P "$(nproc)" -n 25 clang-format --dry-run -Werror >/dev/null 2>&1 &&
        return 0
    local bad=()
    while IFS= read -r -d '' f; do
        clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
    done < <(cxx_files)
    if [ ${#bad[@]} -gt 0 ]; then
        echo "== not formatted (run: bash scripts/nnwb.sh format): ${bad[*]}" >&2
        return 1
    fi
}

# check / check-long. $1: "short" (rotating, CI) or "long" (everything at full length).
run_checks() {
    local length="$1" jobs hash
    jobs="$(nproc)"
    hash="$(commit_hash)"
    # 0. Formatting of every tracked C++ file (the gate; see format_gate above).
    if [ "$format_gate" = 1 ]; then run_format_check; fi
    # 1-4. One sanitizer build per run in `check` (each is a build of every library): the
    # commit count mod 4 picks ASan + UBSan with part 0, 1 or 2 of the test programs (with the
    # fuzzers and the GUI monkey), or TSan with the threaded tests. check-long runs all of them.
    # 0b. The Debian package, installed and purged (minutes; builds only the programs).
    run_package_test
    local sanitizer="all"
    if [ "$length" = short ]; then
        asan_parts=3
        case "$(($(commit_count) % 4))" in
            0 | 1 | 2) sanitizer=asan asan_part="$(($(commit_count) % 4))" ;;
            3) sanitizer=tsan ;;
        esac
        echo "== check: sanitizer of this commit (commit count mod 4): $sanitizer${asan_part:+, part $asan_part of $asan_parts}"
    fi
    if [ "$sanitizer" != tsan ]; then run_asan_fuzz_monkey "$length" "$jobs" "$hash"; fi
    if [ "$sanitizer" != asan ]; then run_tsan; fi
    # 5. The run store under stress (Release build of `test`): 8 processes record 100 runs of
    # 10 epochs each into one store while a thread in each opens and closes the database file
    # every 100 µs; the store must pass its integrity check with every run whole.
    step "run store stress: 8 processes x 100 runs"
    build_preset release --target tst_run_store_stress store_stress_worker
    (cd "$build" && NNWB_STORE_STRESS_WORKERS=8 NNWB_STORE_STRESS_RUNS=100 \
        NNWB_STORE_STRESS_EPOCHS=10 NNWB_STORE_STRESS_CLOSE_US=100 \
        ctest --output-on-failure -R '^tst_run_store_stress$' --no-tests=error)
    # 5b. A sweep of 120 trials on 4 parallel slots (issue 27): the store passes its integrity
    # check with every trial a whole run.
    step "sweep stress: 120 trials on 4 slots"
    build_preset release --target tst_cli_sweep nnwb-cli
    (cd "$build" && NNWB_SWEEP_STRESS_TRIALS=120 QT_QPA_PLATFORM=offscreen \
        ./tests/tst_cli_sweep parallelSlotsKeepTheStoreWhole)
    # 6. OpenCL kernels under oclgrind, with the Release build of `test`: one slice of the
    # parity cases (check) or all of them (check-long).
    local slice=""
    [ "$length" = short ] && slice="$(($(commit_count) % oclgrind_slices))/$oclgrind_slices"
    step "oclgrind: $build, parity slice ${slice:-all}"
    # `test` configured $build before this step installed oclgrind, and CMake looks for it
    # only when it configures: configure again so that the oclgrind tests exist, and fail if
    # there are none (an empty label would pass silently).
    configure release -DNNWB_OCLGRIND=NNWB_OCLGRIND-NOTFOUND
    build_preset release
    (cd "$build" && NNWB_PARITY_SLICE="$slice" ctest --output-on-failure -j "$jobs" -L oclgrind \
        --no-tests=error)
    end_step
    echo "== all checks passed"
}

# check's ASan part: the ASan + UBSan suite (run_asan), then libFuzzer on the three loaders and
# the GUI monkey in the same build. $1: short | long, $2: jobs, $3: the commit hash (seeds).
run_asan_fuzz_monkey() {
    local length="$1" jobs="$2" hash="$3"
    local fuzz_seconds=30 fuzz_seed seeds_a seeds_b actions=1500
    fuzz_seed="$(hex_seed "${hash:14:7}")"
    seeds_a="$(hex_seed "${hash:0:7}")"
    seeds_b="$(hex_seed "${hash:7:7}")"
    if [ "$length" = long ]; then
        fuzz_seconds=300 seeds_a="11,12,13,14,15" seeds_b="21,22,23,24,25" actions=1000
    fi
    run_asan -DNNWB_FUZZ_SECONDS="$fuzz_seconds" -DNNWB_FUZZ_SEED="$fuzz_seed" \
        -DNNWB_MONKEY_SEEDS_A="$seeds_a" -DNNWB_MONKEY_SEEDS_B="$seeds_b" \
        -DNNWB_MONKEY_ACTIONS="$actions"
    # libFuzzer on the three loaders, side by side.
    step "fuzz: 3 loaders x ${fuzz_seconds} s, libFuzzer seed $fuzz_seed"
    (cd build-asan && ctest --output-on-failure -j "$jobs" -L '^fuzzing$' --no-tests=error)
    # The GUI monkey under ASan + UBSan: two seeds from the commit (check) or the fixed ten.
    step "monkey: seeds $seeds_a | $seeds_b, $actions actions per seed (ASan)"
    local log=build-asan/monkey.log
    if ! (cd build-asan && ctest --output-on-failure -V -j "$jobs" --timeout 2400 \
        -L monkey-long --no-tests=error) >"$log" 2>&1; then
        tail -n 300 "$log"
        echo "the GUI monkey failed: seed, action list and report above, all in $log" >&2
        return 1
    fi
    grep -E "monkey: seed .*actions/s" "$log" | sed 's/^[0-9]*: //'
}

# AddressSanitizer + UndefinedBehaviorSanitizer: the whole test suite (not the long monkey and
# the fuzzers, which are steps of their own in check, nor the live Slurm cluster test, whose
# nnwb-cli paths tst_cli_sweep_bundle runs under ASan without the daemons). Arguments: extra -D
# settings. With asan_part=k of asan_parts (check sets them from the commit count), only the
# test programs whose place in the sorted list of programs is k modulo asan_parts are built,
# and their tests run, beside the GUI monkey, the fuzzers and nnwb-cli: with check's rotation,
# any 4 consecutive commits run the whole suite under ASan + UBSan (docs/decisions/ci-time.md);
# `asan` and check-long run it whole. A test is a program of its own unless
# build-asan/tests/test-programs.txt (lines TEST:PROGRAM) puts several tests in one program
# (a unity batch of test files); then the program's tests go together.
asan_part=""
asan_parts=3
run_asan() {
    step "asan+ubsan: build (preset asan, fuzzers included${asan_part:+, test part $asan_part of $asan_parts})"
    configure asan "$@"
    local regex=""
    if [ -z "$asan_part" ]; then
        build_preset asan
    else
        local names always programs targets=() i=0 t p count=0
        names="$(cd build-asan && ctest -N -LE 'monkey-long|^fuzzing$|^slurm$|^package$' |
            sed -n 's/^ *Test *#[0-9]*: *//p' | grep -vx 'install_tree' | sort)"
        always="$(cd build-asan && ctest -N -L 'monkey-long|^fuzzing$' |
            sed -n 's/^ *Test *#[0-9]*: *//p')"
        local -A program_of=() chosen=()
        if [ -f build-asan/tests/test-programs.txt ]; then
            while IFS=: read -r t p; do
                [ -n "$t" ] && program_of[$t]="$p"
            done <build-asan/tests/test-programs.txt
        fi
        programs="$(for t in $names; do echo "${program_of[$t]:-$t}"; done | sort -u)"
        for p in $programs; do
            if [ $((i % asan_parts)) -eq "$asan_part" ]; then
                chosen[$p]=1
                count=$((count + 1))
            fi
            i=$((i + 1))
        done
        for t in $names; do
            [ -n "${chosen[${program_of[$t]:-$t}]:-}" ] || continue
            regex="${regex:+$regex|}$t"
            grep -q "^build $t: phony" build-asan/build.ninja && targets+=("$t")
        done
        for t in $always; do
            grep -q "^build $t: phony" build-asan/build.ninja && targets+=("$t")
        done
        echo "== asan+ubsan: test part $asan_part of $asan_parts: $count of $i programs"
        # nnwb_cli_docs: the manual page and completion that the test cli_docs reads.
        build_preset asan --target nnwb-cli nnwb nnwb_cli_docs tst_monkey "${targets[@]}"
    fi
    step "asan+ubsan: test suite${asan_part:+ (part $asan_part of $asan_parts)}"
    # example_sweeps (four whole sweeps of the shipped specs, 110 s under ASan) runs in `test`;
    # the nnwb-cli sweep paths it takes are those tst_cli_sweep* run here.
    (cd build-asan && ctest --output-on-failure -j "$(nproc)" --timeout 1800 \
        -LE 'monkey-long|^fuzzing$|^slurm$|^package$' -E '^example_sweeps$' \
        ${regex:+-R "^($regex)\$"})
}

# ThreadSanitizer: the tests that run work on several threads (label `threads`), with gcc's
# TSan runtime (libtsan2, part of g++): clang 14's aborts when a test forks (QProcess).
run_tsan() {
    step "tsan: build (preset tsan, the threaded tests only)"
    configure tsan
    local targets
    targets="$(cd build-tsan && ctest -N -L threads | sed -n 's/^ *Test *#[0-9]*: *//p')"
    # shellcheck disable=SC2086
    build_preset tsan --target nnwb-cli tsan_selftest $targets
    step "tsan: threaded tests"
    # Without address-space randomization where the kernel lets us: older TSan runtimes cannot
    # map their shadow memory with more ASLR entropy (vm.mmap_rnd_bits > 28).
    local norandom=()
    if setarch "$(uname -m)" -R true 2>/dev/null; then
        norandom=(setarch "$(uname -m)" -R)
    elif [ "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ]; then
        echo "== tsan: setarch -R is not permitted here; lowering vm.mmap_rnd_bits to 28"
        sysctl -qw vm.mmap_rnd_bits=28 2>/dev/null ||
            echo "== tsan: cannot lower vm.mmap_rnd_bits either; TSan may fail to map its memory"
    fi
    (cd build-tsan && "${norandom[@]}" ctest --output-on-failure -j 1 -L threads --timeout 1800)
}

case "$mode" in
    run)
        step "install"
        install_missing "${packages[@]}"
        step "build (preset release)"
        configure_and_build
        end_step
        trap - EXIT
        shift
        if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" = "" ]; then
            echo "== no display found: starting the workbench under xvfb-run"
            exec xvfb-run -a -s "-screen 0 1920x1080x24" "$build/ui/nnwb" "$@"
        fi
        exec "$build/ui/nnwb" "$@"
        ;;
    test)
        step "install"
        install_missing "${packages[@]}" "${test_packages[@]}"
        install_onnxruntime_node
        step "build (preset release)"
        configure_and_build
        step "test suite"
        # oclgrind runs and the fuzzers belong to `check` (they take minutes). As root, with the
        # Slurm packages just installed, the live Slurm test must run, never skip.
        [ "$(id -u)" = 0 ] && export NNWB_REQUIRE_SLURM=1
        # The package test (label package) installs the .deb as root: `check` runs it.
        (cd "$build" && ctest --output-on-failure -j "$(nproc)" --timeout 1200 \
            -LE 'oclgrind|^fuzzing$|^package$')
        ;;
    check | check-long)
        step "install"
        install_missing "${packages[@]}" "${test_packages[@]}" "${check_packages[@]}"
        install_onnxruntime_node
        if [ "$mode" = check ]; then run_checks short; else run_checks long; fi
        ;;
    asan)
        step "install"
        install_missing "${packages[@]}" "${test_packages[@]}" "${check_packages[@]}"
        install_onnxruntime_node
        # NNWB_ASAN_PART=k/n: only part k of n, as check's rotation picks it.
        if [ -n "${NNWB_ASAN_PART:-}" ]; then
            asan_part="${NNWB_ASAN_PART%/*}" asan_parts="${NNWB_ASAN_PART#*/}"
        fi
        run_asan
        ;;
    tsan)
        step "install"
        install_missing "${packages[@]}" "${check_packages[@]}"
        run_tsan
        ;;
    package)
        step "install"
        install_missing "${packages[@]}"
        step "package (preset release): cpack -G DEB"
        build_package
        ;;
    format)
        install_missing clang-format
        run_format
        ;;
    format-check)
        install_missing clang-format
        run_format_check
        ;;
    *)
        echo "usage: scripts/nnwb.sh run|test|package|check|check-long|asan|tsan|format|format-check" >&2
        exit 2
        ;;
esac
