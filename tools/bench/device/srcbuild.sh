# Builds targets (e.g. nnwb-cli) on the device from .device/src.tar.gz, a snapshot of the tree
# made here (`git archive HEAD | gzip > .device/src.tar.gz`, so that others' unfinished edits in
# the working tree do not travel into the build), with devbuild.sh into /tmp/bd.
R=$PWD; rm -rf /tmp/src; mkdir -p /tmp/src; tar -xzf .device/src.tar.gz -C /tmp/src; ln -s $R/.device /tmp/src/.device
t0=$(date +%s); (cd /tmp/src && JOBS=${JOBS:-16} bash .device/devbuild.sh "$@") || exit 1
echo "device build $(( $(date +%s) - t0 )) s: $*"
