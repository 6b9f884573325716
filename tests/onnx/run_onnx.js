// Runs an ONNX model in onnxruntime (the npm package onnxruntime-node, installed under
// tests/onnx/runtime by scripts/nnwb.sh test) for nnwb's export tests:
//   node run_onnx.js RUNTIME_DIR MODEL.onnx INPUT.f32 SAMPLES WINDOW FEATURES BATCH OUT.f32
// INPUT.f32 holds SAMPLES x WINDOW x FEATURES float32 values; BATCH is the model's fixed batch
// size (0 = dynamic: one run over all samples). OUT.f32 receives the outputs twice, first with
// graph optimizations disabled (every node runs on its own kernel, so a node onnxruntime has no
// kernel for fails the session), then with all optimizations (what a terminal would run).
// A model with several outputs (an ensemble's scores and agreement): per pass, every output
// over all samples in the model's output order. Prints one JSON line: the runtime version and
// the first output's dims.
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [runtimeDir, model, input, samplesArg, windowArg, featuresArg, batchArg, out] =
      process.argv.slice(2);
  const pkgDir = path.join(runtimeDir, 'node_modules', 'onnxruntime-node');
  const ort = require(pkgDir);
  const version = require(path.join(pkgDir, 'package.json')).version;
  const samples = Number(samplesArg), window = Number(windowArg), features = Number(featuresArg);
  const batch = Number(batchArg) || samples;
  const buf = fs.readFileSync(input);
  const x = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  if (x.length !== samples * window * features) throw new Error('input size mismatch');
  const per = window * features;
  const results = [];
  let outDims = null;
  for (const level of ['disabled', 'all']) {
    const session = await ort.InferenceSession.create(
        model, {graphOptimizationLevel: level, executionProviders: ['cpu'], intraOpNumThreads: 1});
    const inName = session.inputNames[0], outNames = session.outputNames;
    const perOutput = outNames.map(() => []);
    for (let first = 0; first < samples; first += batch) {
      if (first + batch > samples) throw new Error('samples must be a multiple of the batch');
      const t = new ort.Tensor('float32', x.slice(first * per, (first + batch) * per),
                               [batch, window, features]);
      const r = await session.run({[inName]: t});
      outDims = r[outNames[0]].dims;
      outNames.forEach((name, k) => perOutput[k].push(
          Buffer.from(r[name].data.buffer, r[name].data.byteOffset, r[name].data.byteLength)));
    }
    for (const buffers of perOutput) results.push(...buffers);
  }
  fs.writeFileSync(out, Buffer.concat(results));
  console.log(JSON.stringify({onnxruntime: version, outputDims: outDims}));
}

main().catch((e) => {
  console.error(String(e && e.stack || e));
  process.exit(1);
});
