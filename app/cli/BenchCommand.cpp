#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/Commands.h"
#include "app/cli/FlagChecks.h"
#include "app/cli/PresetPath.h"
#include "app/engine/BenchSession.h"
#include "compute/Backend.h"
#include "compute/BackendRegistry.h"
#include "compute/OpenClBackend.h"
#include "model/Experiment.h"
#include "model/ExperimentData.h"
#include "model/Trainer.h"

namespace nnwb::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchResult {
    std::string device, deviceName, preset;
    int batch = 0;
    int population = 1;  // models trained together; samples/s are summed over them
    size_t params = 0;
    double trainSamplesPerSecond = 0, forwardMsPerBatch = 0;
    double launchesPerStep = -1;  // OpenCL: kernel launches per training step (epoch share in)
    std::vector<OpenClBackend::KernelTime> kernels;   // NNWB_CL_PROFILE=1: per kernel
    std::vector<OpenClBackend::KernelTime> products;  // NNWB_CL_PROFILE=1: per matrix product
    double kernelTotalMs = 0;
    double steps = 0;  // training steps timed (kernel launches per step = launches / steps)
    MatmulPrecision precision = MatmulPrecision::Highest;  // what the backend ran (--precision)
};

// One row of a peer's output (../shared/bench/torch_peer.py):
// "torch 2.11.0 graph cuda preset=mql5-fractal-5x8 batch=64 samples/s=43096 ms/step=1.485";
// an ensemble peer (tools/bench/torch_population.py) adds "population=P" after the batch.
struct PeerRow {
    std::string who;  // "torch 2.11.0 graph cuda"
    std::string preset;
    int batch = 0;
    int population = 1;
    double samplesPerSecond = 0;
};

std::vector<PeerRow> readPeer(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw UsageError("--peer " + path + ": cannot read the file");
    static const std::regex line(
        R"(^\s*(.*\S)\s+preset=(\S+)\s+batch=(\d+)(\s+population=(\d+))?\s+samples/s=([0-9.eE+]+)(\s.*)?$)");
    std::vector<PeerRow> rows;
    std::string text;
    int number = 0;
    while (std::getline(in, text)) {
        ++number;
        std::smatch m;
        if (!std::regex_match(text, m, line)) continue;  // other output of the peer
        PeerRow r;
        r.who = m[1];
        r.preset = m[2];
        try {
            r.batch = std::stoi(m[3]);
            if (m[5].matched) r.population = std::stoi(m[5]);
            r.samplesPerSecond = std::stod(m[6]);
        } catch (const std::exception&) {
            throw UsageError("--peer " + path + ":" + std::to_string(number) +
                             ": unreadable batch or samples/s in '" + text + "'");
        }
        rows.push_back(r);
    }
    if (rows.empty())
        throw UsageError("--peer " + path +
                         ": no peer rows (lines with preset=, batch= and samples/s=) found");
    return rows;
}

// Times training epochs of the session for `seconds` (after one warm-up epoch), then the
// forward pass of one batch for a quarter of that.
void timeSession(TrainingSession& session, int batch, int population, double seconds,
                 BenchResult& r) {
    Trainer& trainer = session.trainer();
    auto* cl = dynamic_cast<OpenClBackend*>(&session.backend());
    trainer.runEpoch();  // warm-up: program caches, allocations, first-touch
    if (cl) cl->resetKernelTimes();
    const uint64_t launches0 = cl ? cl->enqueueCount() : 0;
    size_t done = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
        done += trainer.runEpoch().train.samples;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    r.trainSamplesPerSecond = double(done) * population / elapsed;
    if (cl) {
        const size_t steps = (done + size_t(batch) - 1) / size_t(batch);
        if (steps > 0) r.launchesPerStep = double(cl->enqueueCount() - launches0) / double(steps);
        r.steps = double(steps);
        r.kernels = cl->kernelTimes();
        r.products = cl->productTimes();
        for (const auto& k : r.kernels) r.kernelTotalMs += k.ms;
    }
    SampleSet one = session.split().train;  // exactly one batch for forward latency
    one.x.resize(static_cast<size_t>(batch) * one.inputShape.size());
    one.y.resize(static_cast<size_t>(batch) * static_cast<size_t>(one.outputs));
    trainer.evaluate(one);
    int reps = 0;
    const auto fstart = Clock::now();
    double felapsed = 0;
    do {
        trainer.evaluate(one);
        ++reps;
        felapsed = std::chrono::duration<double>(Clock::now() - fstart).count();
    } while (felapsed < seconds / 4 && reps < 100000);
    r.forwardMsPerBatch = 1000.0 * felapsed / reps;
}

// One row: P models of the preset (P = 1 the single run) in the TrainingSession every run
// trains with (app/engine/BenchSession.h), on random data of the preset's shapes.
BenchResult benchOne(const std::string& device, const std::string& preset, int batch,
                     int population, double seconds, MatmulPrecision precision) {
    BenchResult r;
    r.population = population;
    r.device = device;
    r.preset = preset;
    r.batch = batch;
    Experiment exp = Experiment::load(resolvePreset(preset));
    exp.training.batchSize = batch;
    exp.training.shuffle = false;
    exp.training.device = device;
    // Enough samples for a few batches per "epoch" so that timing checks stay cheap.
    const size_t samples = static_cast<size_t>(batch) * static_cast<size_t>(batch == 1 ? 64 : 8);
    const auto session = benchSession(exp, population, samples);
    r.deviceName = session->backend().info().name;
    r.precision = session->backend().setMatmulPrecision(precision);
    if (r.precision != precision)
        std::fprintf(stderr, "%s: matmul precision %s is not available there; float32 (%s)\n",
                     device.c_str(), matmulPrecisionName(precision),
                     matmulPrecisionName(r.precision));
    r.params = session->network().parameterCount();
    timeSession(*session, batch, population, seconds, r);
    return r;
}

// A profiled product's achieved rate: its floating-point work over its device time.
double tflops(const OpenClBackend::KernelTime& p) {
    return p.ms > 0 ? p.gflop * double(p.launches) / p.ms : 0.0;  // GFLOP per ms
}

// A peer row measures the same thing as a bench row: preset, batch and population.
bool matches(const PeerRow& p, const BenchResult& r) {
    return p.preset == r.preset && p.batch == r.batch && p.population == r.population;
}

struct BenchOptions {
    std::vector<std::string> devices, presets, peerFiles;
    std::vector<int> batches, populations;
    int seconds = 3, top = 12;
    bool json = false;
    std::string precision = "highest";  // --precision
};

// One row of --json: the figures, the top kernels and products, and the matching peers.
void printJsonRow(const BenchResult& r, const std::vector<PeerRow>& peers, int top) {
    nlohmann::json j{{"device", r.device},
                     {"deviceName", r.deviceName},
                     {"preset", r.preset},
                     {"batch", r.batch},
                     {"population", r.population},
                     {"parameters", r.params},
                     {"trainSamplesPerSecond", r.trainSamplesPerSecond},
                     {"forwardMsPerBatch", r.forwardMsPerBatch},
                     {"matmulPrecision", matmulPrecisionName(r.precision)}};
    nlohmann::json ks = nlohmann::json::array();
    for (size_t k = 0; k < r.kernels.size() && int(k) < top; ++k)
        ks.push_back({{"kernel", r.kernels[k].name},
                      {"ms", r.kernels[k].ms},
                      {"launchesPerStep", r.kernels[k].launches / r.steps}});
    if (!r.kernels.empty()) j["kernels"] = ks;
    nlohmann::json pr = nlohmann::json::array();
    for (size_t k = 0; k < r.products.size() && int(k) < top; ++k)
        pr.push_back({{"product", r.products[k].name},
                      {"ms", r.products[k].ms},
                      {"perStep", r.products[k].launches / r.steps},
                      {"tflops", tflops(r.products[k])}});
    if (!r.products.empty()) j["products"] = pr;
    if (r.launchesPerStep >= 0) j["launchesPerStep"] = r.launchesPerStep;
    nlohmann::json ps = nlohmann::json::array();
    for (const PeerRow& p : peers)
        if (matches(p, r))
            ps.push_back({{"peer", p.who},
                          {"samplesPerSecond", p.samplesPerSecond},
                          {"ratio", r.trainSamplesPerSecond / p.samplesPerSecond}});
    if (!peers.empty()) j["peers"] = ps;
    std::printf("%s\n", j.dump().c_str());
}

// One row of the table, then its matching peers, top kernels and products indented.
void printTextRow(const BenchResult& r, const std::vector<PeerRow>& peers, int top) {
    char launches[32] = "-";
    if (r.launchesPerStep >= 0) std::snprintf(launches, sizeof launches, "%.1f", r.launchesPerStep);
    std::printf("%-12s %-22s %6d %5d %10zu %14.1f %14.3f %12s  %s%s\n", r.device.c_str(),
                r.preset.c_str(), r.batch, r.population, r.params, r.trainSamplesPerSecond,
                r.forwardMsPerBatch, launches, r.deviceName.c_str(),
                r.precision == MatmulPrecision::High ? " (TF32)" : "");
    for (const PeerRow& p : peers)
        if (matches(p, r))
            std::printf("    vs %-40s %12.1f smp/s  ratio %.2fx\n", p.who.c_str(),
                        p.samplesPerSecond, r.trainSamplesPerSecond / p.samplesPerSecond);
    for (size_t k = 0; k < r.kernels.size() && int(k) < top; ++k)
        std::printf("    %-34s %10.2f ms %5.1f%% %7.2f launches/step\n", r.kernels[k].name.c_str(),
                    r.kernels[k].ms,
                    r.kernelTotalMs > 0 ? 100.0 * r.kernels[k].ms / r.kernelTotalMs : 0.0,
                    r.kernels[k].launches / r.steps);
    for (size_t k = 0; k < r.products.size() && int(k) < top; ++k)
        std::printf("    product %-42s %9.2f ms %6.2f/step %6.2f TFLOP/s\n",
                    r.products[k].name.c_str(), r.products[k].ms, r.products[k].launches / r.steps,
                    tflops(r.products[k]));
}

// The lists' defaults (every device, mql5-fractal-5x8, batches 1 and 64, population 1), the
// peers read and the presets and precision checked: bad input throws UsageError.
std::vector<PeerRow> completeBenchOptions(BenchOptions& o, MatmulPrecision& precision) {
    std::vector<PeerRow> peers;
    for (const std::string& file : o.peerFiles) {
        const std::vector<PeerRow> more = readPeer(file);
        peers.insert(peers.end(), more.begin(), more.end());
    }
    if (o.devices.empty())
        for (const auto& d : listDevices()) o.devices.push_back(d.id);
    if (o.presets.empty()) o.presets.push_back("mql5-fractal-5x8");
    if (o.batches.empty()) o.batches = {1, 64};
    if (o.populations.empty()) o.populations = {1};
    if (!matmulPrecisionFromName(o.precision, precision))
        throw UsageError("--precision " + o.precision + ": not highest or high");
    for (const auto& p : o.presets) {
        try {
            resolvePreset(p);
        } catch (const std::exception& e) {
            throw UsageError(e.what());
        }
    }
    return peers;
}

int runBench(BenchOptions& o) {
    MatmulPrecision precision = MatmulPrecision::Highest;
    const std::vector<PeerRow> peers = completeBenchOptions(o, precision);
    if (!o.json)
        std::printf("%-12s %-22s %6s %5s %10s %14s %14s %12s  %s\n", "DEVICE", "PRESET", "BATCH",
                    "POP", "PARAMS", "TRAIN SMP/S", "FWD MS/BATCH", "LAUNCH/STEP", "DEVICE NAME");
    for (const auto& d : o.devices)
        for (const auto& p : o.presets)
            for (int b : o.batches)
                for (int pop : o.populations) {
                    BenchResult r;
                    try {
                        r = benchOne(d, p, b, pop, o.seconds, precision);
                    } catch (const ComputeError& e) {
                        std::fprintf(stderr, "%s %s batch %d population %d: %s\n", d.c_str(),
                                     p.c_str(), b, pop, e.what());
                        continue;
                    } catch (const TrainingError& e) {  // a layer that cannot run as a population
                        throw UsageError(p + ", population " + std::to_string(pop) + ": " +
                                         e.what());
                    }
                    if (o.json)
                        printJsonRow(r, peers, o.top);
                    else
                        printTextRow(r, peers, o.top);
                    std::fflush(stdout);
                }
    return 0;
}

}  // namespace

void addBenchCommand(CLI::App& root, Runners& runners) {
    auto o = std::make_shared<BenchOptions>();
    CLI::App* cmd = root.add_subcommand(
        "bench",
        "training samples/s, forward latency, kernels\n"
        "Training samples/s, forward latency per batch, (OpenCL) kernel launches per training step "
        "and, with NNWB_CL_PROFILE=1, the top N kernels' and matrix products' device time "
        "(products "
        "with their TFLOP/s), of the presets on random "
        "data of their shapes; every combination of the lists.");
    cmd->footer(
        "Exit status: 0 done (a combination that fails on its device is reported on stderr and "
        "skipped), 2 bad input.");
    auto many = [](CLI::Option* opt) { return opt->take_all()->allow_extra_args(false); };
    many(cmd->add_option("--device", o->devices, "a device; without any, every device"))
        ->type_name("ID");
    many(cmd->add_option("--preset", o->presets, "a preset; without any, mql5-fractal-5x8"))
        ->type_name("NAME");
    many(cmd->add_option("--batch", o->batches, "a batch size; without any, 1 and 64"))
        ->type_name("B")
        ->check(integerIn(1, 65536));
    many(cmd->add_option("--population", o->populations,
                         "models trained together in the same launches (samples/s summed over "
                         "them; docs/population.md); without any, 1"))
        ->type_name("P")
        ->check(integerIn(1, 4096));
    cmd->add_option("--seconds", o->seconds, "seconds of training per measurement")
        ->type_name("S")
        ->check(integerIn(1, 3600))
        ->capture_default_str();
    cmd->add_option("--top", o->top, "kernels and products shown per row (NNWB_CL_PROFILE=1)")
        ->type_name("N")
        ->check(integerIn(0, 1000))
        ->capture_default_str();
    many(cmd->add_option("--peer", o->peerFiles,
                         "a peer's output (../shared/bench/torch_peer.py): each row also prints "
                         "the peer's samples/s for that preset and batch and nnwb's ratio to it "
                         "(lines without preset=, batch= and samples/s= are ignored; a file "
                         "without any is an error)"))
        ->type_name("FILE");
    cmd->add_option("--precision", o->precision,
                    "float32 matrix products: highest (float32) or high (TF32 tensor cores where "
                    "the device has them, else float32 with a note on stderr; the device name "
                    "then ends in (TF32))")
        ->type_name("P")
        ->capture_default_str();
    cmd->add_flag("--json", o->json, "one JSON object per row");
    runners[cmd] = [o] { return runBench(*o); };
}

}  // namespace nnwb::cli
