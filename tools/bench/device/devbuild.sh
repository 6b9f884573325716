# Builds the Qt-free tree on the device (deps from carried bookworm .debs in /tmp/deps) into
# /tmp/bd: usage devbuild.sh TARGET...
set -e
mkdir -p /tmp/deps; for f in .device/debs/*.deb; do dpkg -x $f /tmp/deps; done
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/tmp/deps/usr/lib/x86_64-linux-gnu
export PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig:/tmp/deps/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=/tmp/deps
PKGC=$(command -v pkg-config || echo /tmp/deps/usr/bin/pkgconf)
cmake -S . -B /tmp/bd -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 -DNNWB_BUILD_GUI=OFF -DNNWB_ONNX=OFF \
  -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DPKG_CONFIG_EXECUTABLE=$PKGC -DOpenCL_INCLUDE_DIR=${OpenCL_INCLUDE_DIR:-$PWD/.device/include} \
  ${OpenCL_LIBRARY:+-DOpenCL_LIBRARY=$OpenCL_LIBRARY} > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build /tmp/bd -j${JOBS:-28} --target "$@" > /tmp/build.log 2>&1 || { grep -m5 -A5 "error" /tmp/build.log; tail -5 /tmp/build.log; exit 1; }
echo "devbuild ok: $*"
