#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root, or with sudo available):
#   scripts/nnwb.sh run    install what is missing, build, open the workbench
#   scripts/nnwb.sh test   install what is missing, build, run the whole test suite (ctest)
#   scripts/nnwb.sh check  reliability checks: fuzzers, ASan + UBSan suite, TSan threaded tests,
#                          OpenCL kernels under oclgrind
#   scripts/nnwb.sh asan   AddressSanitizer + UBSan build of the whole test suite (part of check)
#   scripts/nnwb.sh tsan   ThreadSanitizer build of the threaded tests (part of check)
#   scripts/nnwb.sh format formats every tracked C++ file with clang-format (.clang-format)
#   scripts/nnwb.sh format-check  fails when a tracked C++ file is not formatted (part of check)
# A second run installs nothing and rebuilds only what changed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
build="${NNWB_BUILD_DIR:-build}"
mode="${1:-}"

packages=(build-essential cmake pkg-config qt6-base-dev libqcustomplot-dev ocl-icd-opencl-dev
          opencl-c-headers pocl-opencl-icd clinfo nlohmann-json3-dev xvfb xauth
          libonnx-dev libprotobuf-dev libsqlite3-dev libsqlitecpp-dev)

# Only for `check`: clang with its sanitizer and libFuzzer runtimes, llvm-symbolizer, oclgrind.
check_packages=(clang libclang-rt-14-dev llvm oclgrind clang-format)

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

configure_and_build() {
    if [ ! -f "$build/CMakeCache.txt" ]; then
        cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
    fi
    cmake --build "$build" -j "$(nproc)"
}

# configure_clang DIR CMAKE_ARGS...: a clang build folder, configured once.
configure_clang() {
    local dir="$1"
    shift
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@"
    fi
}

step() { echo "== $(date +%T) $*"; }

# The tracked C++ sources (what the formatting gate covers; kernels/*.cl are left as written).
cxx_files() { git ls-files -z -- '*.cpp' '*.h'; }

run_format() {
    step "format: clang-format -i on every tracked C++ file"
    cxx_files | xargs -0 clang-format -i
}

# Fails, listing the files, when clang-format would change a tracked C++ file.
run_format_check() {
    step "format-check: clang-format --dry-run -Werror"
    local bad=()
    while IFS= read -r -d '' f; do
        clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
    done < <(cxx_files)
    if [ ${#bad[@]} -gt 0 ]; then
        echo "== not formatted (run: bash scripts/nnwb.sh format): ${bad[*]}" >&2
        return 1
    fi
}

run_checks() {
    local jobs
    jobs="$(nproc)"
    # 0. Formatting of every tracked C++ file (the gate; see format_gate above).
    if [ "$format_gate" = 1 ]; then run_format_check; fi
    # 1. libFuzzer targets of the three loaders, NNWB_FUZZ_SECONDS each (Qt-free build).
    step "fuzz: build-fuzz"
    configure_clang build-fuzz -DNNWB_BUILD_GUI=OFF -DNNWB_FUZZ=ON
    cmake --build build-fuzz -j "$jobs" --target fuzz_bar_importer fuzz_experiment fuzz_safetensors
    (cd build-fuzz && ctest --output-on-failure -j "$jobs" -L fuzz)
    # 2. The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
    run_asan
    # 3. The threaded tests under ThreadSanitizer.
    run_tsan
    # 4. OpenCL kernels under oclgrind, with the Release build of `test`.
    step "oclgrind: $build"
    # `test` configured $build before this step installed oclgrind, and CMake looks for it
    # only when it configures: configure again so that the oclgrind tests exist, and fail if
    # there are none (an empty label would pass silently).
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    configure_and_build
    (cd "$build" && ctest --output-on-failure -j "$jobs" -L oclgrind --no-tests=error)
    step "all checks passed"
}

# AddressSanitizer + UndefinedBehaviorSanitizer: the whole test suite.
run_asan() {
    local jobs
    jobs="$(nproc)"
    step "asan+ubsan: build-asan"
    configure_clang build-asan -DNNWB_SANITIZE=address,undefined
    cmake --build build-asan -j "$jobs"
    (cd build-asan && ctest --output-on-failure -j "$jobs" --timeout 1800 -LE monkey)
    # The GUI monkey at length: 10,000 random actions over ten seeds, split in two tests that
    # run side by side (tests/CMakeLists.txt); each prints its actions per second.
    step "asan+ubsan: GUI monkey, 10,000 actions"
    local log=build-asan/monkey.log
    if ! (cd build-asan && ctest --output-on-failure -V -j "$jobs" --timeout 2400 -L monkey) \
        >"$log" 2>&1; then
        tail -n 300 "$log"
        echo "the GUI monkey failed: seed, action list and report above, all in $log" >&2
        return 1
    fi
    grep -E "monkey: seed .*actions/s" "$log" | sed 's/^[0-9]*: //'
}

# ThreadSanitizer: the tests that run work on several threads (label `threads`), with gcc's
# TSan runtime (libtsan2, part of g++): clang 14's aborts when a test forks (QProcess).
run_tsan() {
    local jobs
    jobs="$(nproc)"
    step "tsan: build-tsan"
    if [ ! -f build-tsan/CMakeCache.txt ]; then
        CC=gcc CXX=g++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Release -DNNWB_SANITIZE=thread
    fi
    local targets
    targets="$(cd build-tsan && ctest -N -L threads | sed -n 's/^ *Test *#[0-9]*: *//p')"
    # shellcheck disable=SC2086
    cmake --build build-tsan -j "$jobs" --target nnwb-cli tsan_selftest $targets
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
        install_missing "${packages[@]}"
        configure_and_build
        shift
        if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" = "" ]; then
            echo "== no display found: starting the workbench under xvfb-run"
            exec xvfb-run -a -s "-screen 0 1920x1080x24" "$build/ui/nnwb" "$@"
        fi
        exec "$build/ui/nnwb" "$@"
        ;;
    test)
        install_missing "${packages[@]}"
        install_onnxruntime_node
        configure_and_build
        cd "$build"
        # oclgrind runs belong to `check` (they take minutes).
        ctest --output-on-failure -j "$(nproc)" --timeout 1200 -LE oclgrind
        ;;
    check)
        install_missing "${packages[@]}" "${check_packages[@]}"
        install_onnxruntime_node
        run_checks
        ;;
    asan)
        install_missing "${packages[@]}" "${check_packages[@]}"
        install_onnxruntime_node
        run_asan
        ;;
    tsan)
        install_missing "${packages[@]}" "${check_packages[@]}"
        run_tsan
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
        echo "usage: scripts/nnwb.sh run|test|check|asan|tsan|format|format-check" >&2
        exit 2
        ;;
esac
