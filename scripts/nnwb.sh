#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root, or with sudo available):
#   scripts/nnwb.sh run    install what is missing, build, open the workbench
#   scripts/nnwb.sh test   install what is missing, build, run the whole test suite (ctest)
# A second run installs nothing and rebuilds only what changed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
build="${NNWB_BUILD_DIR:-build}"
mode="${1:-}"

packages=(build-essential cmake pkg-config qt6-base-dev libqcustomplot-dev ocl-icd-opencl-dev
          opencl-c-headers pocl-opencl-icd clinfo nlohmann-json3-dev xvfb xauth)

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
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

case "$mode" in
    run)
        install_missing
        configure_and_build
        shift
        if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" = "" ]; then
            echo "== no display found: starting the workbench under xvfb-run"
            exec xvfb-run -a -s "-screen 0 1920x1080x24" "$build/ui/nnwb" "$@"
        fi
        exec "$build/ui/nnwb" "$@"
        ;;
    test)
        install_missing
        configure_and_build
        cd "$build"
        ctest --output-on-failure -j "$(nproc)" --timeout 1200
        ;;
    *)
        echo "usage: scripts/nnwb.sh run|test" >&2
        exit 2
        ;;
esac
