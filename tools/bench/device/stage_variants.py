# generate kernel dirs with the fused block's forward/backward cut short after stage k
import os, shutil, sys
src = sys.argv[1]; out = sys.argv[2]
lines = open(os.path.join(src, "attention_block.cl")).read().split("\n")
fwd0 = next(i for i,l in enumerate(lines) if "__kernel void attention_block_forward" in l)
bwd0 = next(i for i,l in enumerate(lines) if "__kernel void attention_block_backward" in l)
red0 = next(i for i,l in enumerate(lines) if "__kernel void attention_block_reduce" in l)
def marker(start, end, text):
    return next(i for i in range(start, end) if lines[i].strip().startswith(text))
fwdm = {"0": marker(fwd0, bwd0, "// 1. X"), "1": marker(fwd0, bwd0, "// 2."),
        "2": marker(fwd0, bwd0, "for (int h0 = 0"), "4": marker(fwd0, bwd0, "// 5."),
        "5": marker(fwd0, bwd0, "// 6."), "6": marker(fwd0, bwd0, "// 7."),
        "7": marker(fwd0, bwd0, "// 8."), "8": marker(fwd0, bwd0, "// 9."), "9": None}
bwdm = {"0": marker(bwd0, red0, "// 1. dR2"), "1": marker(bwd0, red0, "// 2."),
        "2": marker(bwd0, red0, "// 3."), "3": marker(bwd0, red0, "// 4."),
        "4": marker(bwd0, red0, "// 5."), "5": marker(bwd0, red0, "// 6."),
        "6": marker(bwd0, red0, "for (int h0 = 0"), "9": marker(bwd0, red0, "// 10."), "10": None}
variants = [("0", "0"), ("1", "1"), ("2", "2"), ("4", "3"), ("5", "4"), ("6", "5"), ("7", "6"), ("8", "9"), ("9", "10")]
for f, b in variants:
    d = os.path.join(out, "f%s_b%s" % (f, b))
    shutil.copytree(src, d)
    ls = list(lines)
    ins = []
    if fwdm[f] is not None: ins.append(fwdm[f])
    if bwdm[b] is not None: ins.append(bwdm[b])
    for i in sorted(ins, reverse=True):
        ls.insert(i, "    if (units > 0) return;  // stage cut (diagnostic)")
    open(os.path.join(d, "attention_block.cl"), "w").write("\n".join(ls))
    print(d)
