"""A/B variant for blocksplit.sh (session 9): puts OpenClBackend::upload's blocking write of before
b5e8f13 back into a snapshot's compute/OpenClBackend.cpp (the snapshot only, never the tree), so
that one incremental rebuild gives a second nnwb-cli. Usage: python3 upload_blocking.py SRC_DIR"""
import sys

path = sys.argv[1] + '/compute/OpenClBackend.cpp'
s = open(path).read()
old = '''    if (err == CL_SUCCESS) {
        std::vector<float> block(src, src + count);
        err = clEnqueueWriteBuffer(d_->queue.get(), Impl::mem(dst), CL_FALSE,
                                   dst.offset * sizeof(float), count * sizeof(float), block.data(),
                                   0, nullptr, nullptr);
        if (err == CL_SUCCESS) {
            d_->pendingUploadBytes += count * sizeof(float);
            d_->pendingUploads.push_back(std::move(block));
        }
    }'''
new = '''    if (err == CL_SUCCESS)  // the blocking write of before b5e8f13 (A/B variant)
        err = clEnqueueWriteBuffer(d_->queue.get(), Impl::mem(dst), CL_TRUE,
                                   dst.offset * sizeof(float), count * sizeof(float), src, 0,
                                   nullptr, nullptr);'''
if s.count(old) != 1:
    sys.exit('upload_blocking.py: the non-blocking upload block is not in ' + path)
open(path, 'w').write(s.replace(old, new))
print('upload_blocking.py: patched ' + path)
