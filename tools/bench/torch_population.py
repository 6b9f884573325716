"""PyTorch ensemble peer for `nnwb-cli bench --population P`: P models of one architecture
trained together the way PyTorch does it (torch.func.stack_module_state + vmap over
functional_call; one Adam over the stacked parameters, which is P independent Adams since Adam
is element-wise; each model's loss is its own batch mean, summed over models so each model's
gradient is its own), timed as model-samples per second (samples/s summed over the models).
The networks are those of ../shared/bench/torch_peer.py (imported from it, not copied).

  python3 tools/bench/torch_population.py --mode graph        # whole step in one CUDA graph
  python3 tools/bench/torch_population.py --mode compile      # TorchInductor + CUDA graph
  python3 tools/bench/torch_population.py --mode eager --device cpu --threads 2

Each row: "torch V ensemble-MODE DEV preset=NAME batch=B population=P samples/s=S ms/step=T",
which `nnwb-cli bench --peer FILE` matches to its rows of the same preset, batch and population.
"""
import argparse, copy, importlib.util, os, sys, time
import torch, torch.nn.functional as F
from torch.func import functional_call, stack_module_state


def load_peer(path):
    spec = importlib.util.spec_from_file_location('torch_peer', path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules['torch_peer'] = mod  # TorchDynamo re-imports the networks' module by name
    spec.loader.exec_module(mod)
    return mod


def bench(peer, mode, dev, name, batch, population, seconds):
    # Under vmap the memory-efficient SDPA kernel's backward fails ("LSE is not correctly
    # aligned (strideH)", PyTorch 2.11); flash and cuDNN need half precision. So the attention
    # core is PyTorch's math path here (TorchInductor fuses it in --mode compile).
    torch.backends.cuda.enable_mem_efficient_sdp(False)
    torch.manual_seed(0)
    models = []
    for _ in range(population):
        shape, net = peer.make(name)
        models.append(net.to(dev))
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to('meta')
    def one(p, b, x):
        return functional_call(base, (p, b), (x,))
    ensemble = torch.vmap(one)
    if mode == 'compile':
        torch._dynamo.reset()  # each row compiled for its own static shapes
        fwd = torch.compile(ensemble, dynamic=False)
    else:
        fwd = ensemble
    opt = torch.optim.Adam(list(params.values()), 1e-3, capturable=(mode != 'eager'))
    x = torch.randn(population, batch, *shape, device=dev)
    y = torch.rand(population, batch, 3, device=dev)
    def loss():
        # Each model's batch mean, summed over the models: model m's gradient is its own.
        return F.mse_loss(fwd(params, buffers, x), y, reduction='none').mean(dim=(1, 2)).sum()
    def step():
        opt.zero_grad(set_to_none=True); loss().backward(); opt.step()
    sync = torch.cuda.synchronize if dev == 'cuda' else (lambda: None)
    if mode in ('graph', 'compile'):
        s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3): step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph(); opt.zero_grad(set_to_none=True)
        with torch.cuda.graph(g):
            loss().backward(); opt.step()
        step = g.replay
    for _ in range(3): step()
    sync(); n = 0; t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        for _ in range(10): step()
        n += 10; sync()
    dt = (time.perf_counter() - t) / n
    print(f"torch {torch.__version__} ensemble-{mode} {dev} preset={name} batch={batch} "
          f"population={population} samples/s={population * batch / dt:.0f} "
          f"ms/step={dt * 1e3:.3f}", flush=True)


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument('--mode', choices=['eager', 'graph', 'compile'], default='graph')
    ap.add_argument('--device', default='cuda'); ap.add_argument('--threads', type=int, default=0)
    ap.add_argument('--seconds', type=float, default=3.0)
    ap.add_argument('--peer', default=os.path.join(here, '..', '..', '..', 'shared', 'bench',
                                                   'torch_peer.py'),
                    help='torch_peer.py, whose networks this trains')
    ap.add_argument('--populations', default='1,8,32,128')
    ap.add_argument('--only', default='', help='rows NAME:BATCH, comma-separated')
    a = ap.parse_args()
    if a.threads: torch.set_num_threads(a.threads)
    peer = load_peer(a.peer)
    dev = 'cuda' if a.mode != 'eager' else a.device
    rows = [('mql5-fractal-5x8', 1), ('mql5-fractal-5x8', 64), ('mql5-fractal-12x12', 1),
            ('transformer-64', 256)]
    only = [r for r in a.only.split(',') if r]
    for name, batch in rows:
        if only and f"{name}:{batch}" not in only: continue
        for p in [int(v) for v in a.populations.split(',')]:
            try:
                bench(peer, a.mode, dev, name, batch, p, a.seconds)
            except torch.OutOfMemoryError:
                print(f"# {name} batch={batch} population={p}: out of memory", flush=True)
                torch.cuda.empty_cache()
            except Exception as e:  # a mode that cannot run this row: say so, go on
                print(f"# {name} batch={batch} population={p}: {type(e).__name__}: {e}",
                      flush=True)
