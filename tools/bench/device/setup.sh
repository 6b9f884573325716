# From tools/bench/device/ (README.md there); run as .device/setup.sh on the GPU machine.
# Sourced at the start of every device call (from the repo root): OpenCL ICD, carried libs,
# the NVIDIA platform index in $P, the binaries in $B / $T.
export LD_LIBRARY_PATH=$PWD/.device/lib
source .device/opencl-env.sh > /tmp/clenv.txt 2>&1; cat /tmp/clenv.txt
[ -z "$OpenCL_LIBRARY" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.device/libcl
P=$(grep -m1 NVIDIA /tmp/clenv.txt | sed 's/opencl platform \([0-9]*\).*/\1/'); P=${P:-0}
export P B=$PWD/.device/bin/nnwb-cli T=$PWD/.device/bin
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
