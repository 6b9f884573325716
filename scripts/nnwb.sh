#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root, or with sudo available):
#   scripts/nnwb.sh run    install what is missing, build, open the workbench
#   scripts/nnwb.sh test   install what is missing, build, run the whole test suite (ctest)
#   scripts/nnwb.sh check  reliability checks: fuzzers, ASan + UBSan suite, TSan threaded tests,
#                          OpenCL kernels under oclgrind
#   scripts/nnwb.sh asan   AddressSanitizer + UBSan build of the whole test suite (part of check)
#   scripts/nnwb.sh tsan   ThreadSanitizer build of the threaded tests (part of check)
# A second run installs nothing and rebuilds only what changed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
build="${NNWB_BUILD_DIR:-build}"
mode="${1:-}"

packages=(build-essential cmake pkg-config qt6-base-dev libqcustomplot-dev ocl-icd-opencl-dev
          opencl-c-headers pocl-opencl-icd clinfo nlohmann-json3-dev libsqlite3-dev libsqlitecpp-dev
          xvfb xauth)

# Only for `check`: clang with its sanitizer and libFuzzer runtimes, llvm-symbolizer, oclgrind.
check_packages=(clang libclang-rt-14-dev llvm oclgrind)

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

run_checks() {
    local jobs
    jobs="$(nproc)"
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
    configure_and_build
    (cd "$build" && ctest --output-on-failure -j "$jobs" -L oclgrind)
    step "all checks passed"
}

# AddressSanitizer + UndefinedBehaviorSanitizer: the whole test suite.
run_asan() {
    local jobs
    jobs="$(nproc)"
    step "asan+ubsan: build-asan"
    configure_clang build-asan -DNNWB_SANITIZE=address,undefined
    cmake --build build-asan -j "$jobs"
    (cd build-asan && ctest --output-on-failure -j "$jobs" --timeout 1800)
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
        configure_and_build
        cd "$build"
        # oclgrind runs belong to `check` (they take minutes).
        ctest --output-on-failure -j "$(nproc)" --timeout 1200 -LE oclgrind
        ;;
    check)
        install_missing "${packages[@]}" "${check_packages[@]}"
        run_checks
        ;;
    asan)
        install_missing "${packages[@]}" "${check_packages[@]}"
        run_asan
        ;;
    tsan)
        install_missing "${packages[@]}" "${check_packages[@]}"
        run_tsan
        ;;
    *)
        echo "usage: scripts/nnwb.sh run|test|check|asan|tsan" >&2
        exit 2
        ;;
esac
