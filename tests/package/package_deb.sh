#!/usr/bin/env bash
# The real package (label `package`, run by `scripts/nnwb.sh check`): cpack builds
# BUILD/nnwb_VERSION_amd64.deb (Depends with the OpenCL ICD loader, Recommends PoCL, no
# Homepage), lintian finds no error in it (when installed), `apt-get install` installs it, and
# then an unprivileged user made for the test, with a clean environment in a fresh home:
# `nnwb-cli --version`, one epoch of the installed default experiment, a 2-trial sweep of an
# installed example spec (its run store under ~/.local/share/nnwb), the window offscreen
# training one epoch of the bundled data and saving a picture, `man -w nnwb-cli`, and the
# installed completion offering `sweep`; that user owns no file under /usr, /etc, /var, /opt or
# /srv. Last, `apt-get purge nnwb` leaves none of the files `dpkg -L` listed. Needs root (else
# skipped, exit 77). Usage: package_deb.sh BUILD_DIR VERSION TESTS_DIR
set -euo pipefail
build="$1" version="$2" here="$3"
if [ "$(id -u)" -ne 0 ]; then
    echo "skipped: installing a package needs root"
    exit 77
fi
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt or dpkg run to end instead of failing at once on its lock.
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
t0=$(date +%s)
lap() { echo "== package test: $1 ($(($(date +%s) - t0)) s)"; }
user="nnwbpkg$$"
home="$(mktemp -d /tmp/nnwb-package-home.XXXXXX)"
cleanup() {
    userdel "$user" >/dev/null 2>&1 || true
    rm -rf "$home"
    dpkg-query -W nnwb >/dev/null 2>&1 && apt_get purge -y -qq nnwb >/dev/null 2>&1 || true
}
trap cleanup EXIT
# A package left installed by an earlier run would hide what this one installs.
dpkg-query -W -f='${Status}' nnwb 2>/dev/null | grep -q installed && apt_get purge -y -qq nnwb

deb="$build/nnwb_${version}_amd64.deb"
rm -f "$deb"
(cd "$build" && cpack -G DEB >/dev/null)
[ -f "$deb" ] || { echo "cpack wrote no $deb"; exit 1; }
lap "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
dpkg-deb -f "$deb" Depends | grep -q 'ocl-icd-libopencl1 | libopencl-1.1-1 | libopencl1' ||
    { echo "Depends lacks the OpenCL ICD loader: $(dpkg-deb -f "$deb" Depends)"; exit 1; }
[ "$(dpkg-deb -f "$deb" Recommends)" = pocl-opencl-icd ] || { echo "Recommends: not PoCL"; exit 1; }
[ -z "$(dpkg-deb -f "$deb" Homepage)" ] || { echo "a Homepage field, but there is none"; exit 1; }
if command -v lintian >/dev/null; then
    lintian --fail-on error "$deb" || { echo "lintian: errors"; exit 1; }
    lap "lintian: no errors"
fi
apt_get install -y -qq "$(realpath "$deb")" >/dev/null
dpkg-query -W -f='${Version}' nnwb | grep -qx "$version"
dpkg -L nnwb >"$home.files"
lap "installed ($(wc -l <"$home.files") paths)"

useradd --home-dir "$home" --shell /bin/bash "$user"
chown "$user" "$home"
as_user() {
    runuser -u "$user" -- env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 \
        QT_QPA_PLATFORM=offscreen bash -c "cd \"\$HOME\" && $1"
}
res=/usr/share/nnwb/resources
out="$(as_user "nnwb-cli --version")"
[[ "$out" == "nnwb-cli $version" ]] || { echo "nnwb-cli --version: '$out'"; exit 1; }
as_user "nnwb-cli train --experiment $res/experiments/default.json --epochs 1 >train.txt"
lap "trained one epoch of the installed default experiment"
cp "$here/tiny_spec.cmake" "$home/" && chown "$user" "$home/tiny_spec.cmake"
as_user "cmake -DIN=$res/sweeps/random-5x8.json -DOUT=tiny.json -P tiny_spec.cmake &&
         nnwb-cli sweep run tiny.json --slots cpu=1 --quiet && nnwb-cli sweep show 1 --json >show.json"
[ "$(grep -oE '"complete": *[0-9]+' "$home/show.json" | grep -oE '[0-9]+$')" = 2 ] ||
    { echo "the installed example sweep did not complete 2 trials"; exit 1; }
[ -f "$home/.local/share/nnwb/runs.sqlite" ] || { echo "no run store under ~/.local/share/nnwb"; exit 1; }
lap "ran a 2-trial sweep of the installed random-5x8.json"
as_user "nnwb --train-epochs 1 --screenshot shot.png >window.txt 2>&1" ||
    { cat "$home/window.txt"; echo "the window did not train on the bundled data"; exit 1; }
[ -s "$home/shot.png" ] || { echo "the window wrote no picture"; exit 1; }
lap "the window opened and trained one epoch of the bundled data"
[ "$(as_user "man -w nnwb-cli")" = /usr/share/man/man1/nnwb-cli.1.gz ] || { echo "man -w nnwb-cli"; exit 1; }
as_user "source /usr/share/bash-completion/completions/nnwb-cli && COMP_WORDS=(nnwb-cli s) &&
         COMP_CWORD=1 && _nnwb_cli && printf '%s\n' \"\${COMPREPLY[@]}\"" | grep -qx sweep ||
    { echo "the installed completion does not offer sweep"; exit 1; }
strays="$(find /usr /etc /var /opt /srv -xdev -user "$user" -print 2>/dev/null || true)"
[ -z "$strays" ] || { echo "files of the user outside its home: $strays"; exit 1; }
lap "man page, completion, nothing written outside the user's home"

apt_get purge -y -qq nnwb >/dev/null
left=()
while IFS= read -r f; do
    [ "$f" = /. ] && continue
    if [ -d "$f" ] && [ ! -L "$f" ]; then
        dpkg -S "$f" >/dev/null 2>&1 || left+=("$f")  # a folder stays only when shared
    elif [ -e "$f" ] || [ -L "$f" ]; then
        left+=("$f")
    fi
done <"$home.files"
rm -f "$home.files"
[ ${#left[@]} -eq 0 ] || { echo "left after apt-get purge nnwb: ${left[*]}"; exit 1; }
[ ! -e /usr/share/nnwb ] || { echo "/usr/share/nnwb is still there"; exit 1; }
lap "purged; no file of the package is left"
