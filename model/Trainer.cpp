#include "model/Trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "model/ClassWeights.h"
#include "model/NonFiniteFinder.h"
#include "model/Rng.h"

namespace nnwb {

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

Trainer::Trainer(Backend& be, Network& net, const TrainingConfig& cfg, const DataSplit& data)
    : Trainer(be, net, std::vector<TrainingConfig>{cfg}, data) {}

Trainer::Trainer(Backend& be, Network& net, std::vector<TrainingConfig> cfgs, const DataSplit& data)
    : be_(be),
      net_(net),
      cfgs_(std::move(cfgs)),
      cfg_(cfgs_.empty() ? TrainingConfig() : cfgs_.front()),
      P_(static_cast<int>(cfgs_.size())),
      data_(data),
      monitor_(effectiveMonitor(cfg_.monitor, data.validation.size() > 0, data.train.outputs == 3)),
      stopped_(cfgs_.size(), 0),
      runTrain_(cfgs_.size()),
      runVal_(cfgs_.size()) {
    if (P_ < 1) throw TrainingError("a population needs at least one model");
    if (data.train.size() == 0) throw TrainingError("the training part has no samples");
    if (data.train.inputShape != net.inputShape())
        throw TrainingError("the data gives samples of shape " + data.train.inputShape.str() +
                            " but the network expects " + net.inputShape().str());
    if (static_cast<int>(net.outputShape().size()) != data.train.outputs)
        throw TrainingError("the network gives " + std::to_string(net.outputShape().size()) +
                            " outputs but the targets have " + std::to_string(data.train.outputs));
    for (const TrainingConfig& c : cfgs_)
        schedules_.emplace_back(c.lrSchedule, c.optimizer.learningRate, c.epochs);
    const int batch = cfg_.batchSize;
    if (P_ > 1) {
        try {
            net.setPopulation(P_);
        } catch (const std::invalid_argument& e) {
            throw TrainingError(e.what());
        }
    }
    net.build(be, batch);
    if (P_ == 1) {
        net.initWeights(cfg_.seed);
        net.setDropoutSeed(cfg_.seed);  // dropout masks: (seed + layer, training batch)
    } else {
        std::vector<uint64_t> seeds;
        for (const TrainingConfig& c : cfgs_) seeds.push_back(c.seed);
        net.initWeights(seeds);
        net.setDropoutSeeds(seeds);
    }
    net.setDropoutStep(0);
    const size_t P = static_cast<size_t>(P_);
    loss_ = std::make_unique<Loss>(be, cfg_.loss, data.train.outputs, batch * P_);
    if (P_ == 1) {
        opt_ = std::make_unique<Optimizer>(be, cfg_.optimizer, net.params());
    } else {
        std::vector<OptimizerConfig> oc;
        for (const TrainingConfig& c : cfgs_) oc.push_back(c.optimizer);
        opt_ = std::make_unique<Optimizer>(be, std::move(oc), net.paramArena());
    }
    const size_t in = net.inputShape().size(), out = static_cast<size_t>(data.train.outputs);
    const size_t most = std::max(data.train.size(), data.validation.size());
    // Staging chunks of at most ~64 MiB (over all models), whole batches, no more than the
    // largest part.
    const size_t perSample = (in + out) * sizeof(float) * P;
    const size_t b = static_cast<size_t>(batch);
    chunk_ = std::max<size_t>(1, (size_t(64) << 20) / perSample / b) * b;
    chunk_ = std::min(chunk_, (most + b - 1) / b * b);
    x_ = be.alloc(chunk_ * in * P);
    t_ = be.alloc(chunk_ * out * P);
    log_ = be.alloc(2 * std::max<size_t>(most, 1) * P);
    flag_ = be.alloc(P);
    const std::vector<float> codes = MetricsAccumulator::codeWeights(data.train.outputs);
    if (!codes.empty()) {
        codes_ = be.alloc(codes.size());
        be.upload(codes_, codes.data(), codes.size());
    }
    gradNorms_ = be.alloc(((data.train.size() + b - 1) / b + 1) * P);
    try {
        for (const TrainingConfig& c : cfgs_) {
            classWeights_.push_back(classWeightsFor(c.classWeights, data.train));
            anyClassWeights_ = anyClassWeights_ || !classWeights_.back().empty();
        }
    } catch (const std::invalid_argument& e) {
        throw TrainingError(e.what());
    }
    if (anyClassWeights_) w_ = be.alloc(chunk_ * P);
}

void Trainer::stage(const SampleSet& set, const std::vector<std::vector<size_t>>& orders,
                    size_t first, size_t count) {
    const size_t in = set.inputShape.size();
    const size_t out = static_cast<size_t>(set.outputs);
    const size_t P = static_cast<size_t>(P_), B = perModelBatch();
    hostX_.resize(count * in * P);
    hostT_.resize(count * out * P);
    if (anyClassWeights_) hostW_.resize(count * P);
    // Per batch of the chunk (from `at`, cb samples), model m's rows from at * P + m * cb.
    for (size_t at = 0; at < count; at += B) {
        const size_t cb = std::min(B, count - at);
        for (size_t m = 0; m < P; ++m) {
            for (size_t i = 0; i < cb; ++i) {
                const size_t k = first + at + i;
                const size_t s = orders.empty() ? k : orders[m][k];
                const size_t row = at * P + m * cb + i;
                std::copy_n(set.input(s), in, hostX_.data() + row * in);
                std::copy_n(set.target(s), out, hostT_.data() + row * out);
                if (anyClassWeights_)
                    hostW_[row] = classWeights_[m].empty()
                                      ? 1.0f
                                      : static_cast<float>(sampleWeight(set.target(s), set.outputs,
                                                                        classWeights_[m]));
            }
        }
    }
    be_.upload(x_, hostX_.data(), hostX_.size());
    be_.upload(t_, hostT_.data(), hostT_.size());
    if (anyClassWeights_) be_.upload(w_, hostW_.data(), hostW_.size());
}

float Trainer::readFlag() {
    float f = -1.0f;
    be_.download(flag_, &f, 1);
    return f;
}

void Trainer::resetFlags() {
    if (P_ == 1) {
        be_.fill({flag_, 1, -1.0f});
        return;
    }
    // A stopped model keeps a set flag: the optimizer passes over it.
    std::vector<float> f(static_cast<size_t>(P_));
    for (size_t m = 0; m < f.size(); ++m) f[m] = stopped_[m] ? 1e9f : -1.0f;
    be_.upload(flag_, f.data(), f.size());
}

void Trainer::stopModel(int model) {
    stopped_.at(static_cast<size_t>(model)) = 1;
    if (P_ > 1) {
        const float f = 1e9f;
        be_.upload(BufRef(flag_) + static_cast<size_t>(model), &f, 1);
    }
}

const float* Trainer::modelLog(int m, size_t samples) {
    if (P_ == 1) return hostLog_.data();
    const size_t P = static_cast<size_t>(P_), B = perModelBatch();
    modelLog_.resize(2 * samples);
    for (size_t at = 0; at < samples; at += B) {
        const size_t cb = std::min(B, samples - at);
        const float* src = hostLog_.data() + 2 * (at * P + static_cast<size_t>(m) * cb);
        std::copy_n(src, 2 * cb, modelLog_.data() + 2 * at);
    }
    return modelLog_.data();
}

void Trainer::collect(std::vector<MetricsAccumulator>& acc, size_t samples, int epoch,
                      const std::vector<std::vector<size_t>>& orders,
                      std::vector<EpochReport>& reps) {
    std::vector<float> flags(static_cast<size_t>(P_), -1.0f);
    be_.download(flag_, flags.data(), flags.size());
    hostLog_.resize(2 * samples * static_cast<size_t>(P_));
    be_.download(log_, hostLog_.data(), hostLog_.size());
    for (int m = 0; m < P_; ++m) {
        const float flag = flags[static_cast<size_t>(m)];
        const float* log = modelLog(m, samples);
        if (flag >= 0.0f && !stopped_[static_cast<size_t>(m)]) {
            const size_t b = static_cast<size_t>(flag);
            const size_t first = b * perModelBatch();
            bool nan = true;
            for (size_t i = first; i < samples && i < first + perModelBatch(); ++i)
                if (!std::isfinite(log[2 * i])) {
                    nan = std::isnan(log[2 * i]);
                    break;
                }
            const std::string what = "the loss became " + std::string(nan ? "NaN" : "infinite") +
                                     " in epoch " + std::to_string(epoch) + ", batch " +
                                     std::to_string(b + 1);
            if (P_ > 1) {  // this model stops; the others go on
                reps[static_cast<size_t>(m)].error = what;
                stopModel(m);
                continue;
            }
            // The optimizer stopped at the diverging batch: run it again to find the layer.
            const size_t count = std::min<size_t>(cfg_.batchSize, data_.train.size() - first);
            stage(data_.train, orders, first, count);
            const std::string where = firstNonFinite(net_, x_, static_cast<int>(count));
            throw TrainingError(what + "; first non-finite value: " +
                                (where.empty() ? "none in the layers" : where));
        }
        acc[static_cast<size_t>(m)].addOutcomes(log, samples);
    }
}

EpochReport Trainer::runEpoch(TrainControl* control,
                              const std::function<void(const ProgressReport&)>& progress,
                              bool* completed) {
    return runEpochAll(control, progress, completed).front();
}

std::vector<EpochReport> Trainer::runEpochAll(
    TrainControl* control, const std::function<void(const ProgressReport&)>& progress,
    bool* completed) {
    const SampleSet& set = data_.train;
    const size_t n = set.size();
    const int outputs = set.outputs;
    const size_t in = set.inputShape.size();
    const size_t P = static_cast<size_t>(P_);
    const std::vector<std::vector<size_t>> orders = epochOrders();
    std::vector<EpochReport> reps(P);
    std::vector<MetricsAccumulator> acc;
    for (size_t m = 0; m < P; ++m) {
        reps[m].epoch = epoch_ + 1;
        reps[m].model = static_cast<int>(m);
        reps[m].taskMetrics = outputs == 3;
        reps[m].learningRate = schedules_[m].rate(reps[m].epoch);
        if (P_ == 1)
            opt_->setLearningRate(reps[m].learningRate);
        else
            opt_->setLearningRateOf(static_cast<int>(m), reps[m].learningRate);
        acc.emplace_back(outputs, &runTrain_[m]);
    }
    resetFlags();
    const auto start = Clock::now();
    auto lastReport = start - std::chrono::seconds(1);  // report the first batch at once
    size_t done = 0, chunkStart = 0;
    bool stopped = false;
    int batchIndex = 0;
    double pausedSeconds = 0.0;  // time blocked in a pause: not training time
    auto activeSeconds = [&] { return std::max(0.0, secondsSince(start) - pausedSeconds); };
    const ParamArena& arena = net_.paramArena();
    // Every model's slice (a population's slices are the arena's capacity apart).
    const size_t clipCount = P_ == 1 ? arena.used() : arena.capacity() * P;
    for (size_t first = 0; first < n; first += static_cast<size_t>(cfg_.batchSize), ++batchIndex) {
        if (control) {
            const auto before = Clock::now();  // checkpoint() blocks while paused
            const bool go = control->checkpoint();
            pausedSeconds += secondsSince(before);
            if (!go) {
                stopped = true;
                break;
            }
        }
        const int count = static_cast<int>(std::min<size_t>(cfg_.batchSize, n - first));
        const int rows = count * P_;
        if (first % chunk_ == 0) {
            chunkStart = first;
            stage(set, orders, first, std::min(chunk_, n - first));
        }
        const size_t at = (first - chunkStart) * P;
        const BufRef x = BufRef(x_) + at * in;
        const BufRef t = BufRef(t_) + at * static_cast<size_t>(outputs);
        net_.zeroGrad();
        BufRef y = net_.forward(x, count, true);
        loss_->compute(y, t, count, P_);
        if (anyClassWeights_) be_.scaleRows({rows, outputs, BufRef(w_) + at, loss_->gradient()});
        net_.backward(x, loss_->gradient(), count);
        be_.clipByGlobalNorm({clipCount, arena.grads(), static_cast<float>(cfg_.clipNorm),
                              BufRef(gradNorms_) + static_cast<size_t>(batchIndex) * P, P_});
        be_.recordOutcomes({rows, outputs, loss_->prediction(y), t, loss_->perSample(),
                            BufRef(log_) + 2 * first * P, flag_, static_cast<float>(batchIndex),
                            codes_, P_});
        opt_->step(flag_);
        done += static_cast<size_t>(count);
        if (progress && (secondsSince(lastReport) > 0.1 || done == n)) {
            // The one read-back inside an epoch, at most ten times a second: the flag (of a
            // single run; a population's diverged models go on being masked).
            if (P_ == 1 && readFlag() >= 0.0f) break;
            lastReport = Clock::now();
            ProgressReport p;
            p.epoch = reps[0].epoch;
            p.done = done;
            p.total = n;
            const double el = activeSeconds();
            // The first report (at once) times the chunk's staging and one step: not a rate.
            p.samplesPerSecond = batchIndex == 0 ? lastRate_ : el > 0 ? done / el : 0.0;
            p.etaSeconds = p.samplesPerSecond > 0 ? (n - done) / p.samplesPerSecond : 0.0;
            progress(p);
        }
    }
    collect(acc, done, reps[0].epoch, orders, reps);  // waits for the device
    finishReports(reps, acc, done, activeSeconds(), !stopped);
    if (completed) *completed = !stopped;
    return reps;
}

std::vector<std::vector<size_t>> Trainer::epochOrders() const {
    const size_t n = data_.train.size();
    // Each model's sample order from its own seed: model m sees what it would see alone.
    std::vector<std::vector<size_t>> orders(cfgs_.size(), std::vector<size_t>(n));
    for (size_t m = 0; m < orders.size(); ++m) {
        std::vector<size_t>& order = orders[m];
        std::iota(order.begin(), order.end(), size_t(0));
        if (cfg_.shuffle) {
            Rng rng(cfgs_[m].seed ^ (0xA5A5A5A5ull + static_cast<uint64_t>(epoch_) * 7919ull));
            for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
        }
    }
    return orders;
}

void Trainer::finishReports(std::vector<EpochReport>& reps, std::vector<MetricsAccumulator>& acc,
                            size_t done, double seconds, bool completed) {
    const size_t P = static_cast<size_t>(P_);
    const int outputs = data_.train.outputs;
    const size_t batches = (done + static_cast<size_t>(cfg_.batchSize) - 1) / cfg_.batchSize;
    if (batches > 0) {
        hostNorms_.resize(batches * P);
        be_.download(gradNorms_, hostNorms_.data(), hostNorms_.size());
        for (size_t m = 0; m < P; ++m) {
            double sum = 0.0;
            for (size_t k = 0; k < batches; ++k) {
                const float v = hostNorms_[k * P + m];
                reps[m].gradNormMax = std::max(reps[m].gradNormMax, double(v));
                sum += v;
            }
            reps[m].gradNormMean = sum / batches;
        }
    }
    for (size_t m = 0; m < P; ++m) {
        reps[m].seconds = seconds;
        reps[m].samplesPerSecond = seconds > 0 ? done / seconds : 0.0;
        reps[m].train = acc[m].result();
    }
    if (completed) {
        lastRate_ = reps.front().samplesPerSecond;
        ++epoch_;
        if (data_.validation.size() > 0) {
            std::vector<float> outs;
            const std::vector<EpochMetrics> v = evaluateAll(
                data_.validation, runVal_.data(), keepValidationOutputs_ ? &outs : nullptr);
            const size_t per = data_.validation.size() * static_cast<size_t>(outputs);
            for (size_t m = 0; m < P; ++m) {
                reps[m].validation = v[m];
                if (keepValidationOutputs_)
                    reps[m].validationOutputs = std::make_shared<const std::vector<float>>(
                        outs.begin() + static_cast<std::ptrdiff_t>(m * per),
                        outs.begin() + static_cast<std::ptrdiff_t>((m + 1) * per));
            }
        }
        for (size_t m = 0; m < P; ++m)
            schedules_[m].observe(monitorValue(monitor_, reps[m].train, reps[m].validation),
                                  monitor_);
    }
}

EpochMetrics Trainer::evaluate(const SampleSet& set, RunningAverages* running,
                               std::vector<float>* outputs) {
    // Model 0's: its averages first in a table of every model's, its outputs first.
    std::vector<RunningAverages> averages(static_cast<size_t>(P_));
    if (running) averages[0] = *running;
    const EpochMetrics r = evaluateAll(set, running ? averages.data() : nullptr, outputs).front();
    if (running) *running = averages[0];
    if (outputs) outputs->resize(set.size() * static_cast<size_t>(set.outputs));
    return r;
}

std::vector<EpochMetrics> Trainer::evaluateAll(const SampleSet& set, RunningAverages* running,
                                               std::vector<float>* outputs) {
    const size_t P = static_cast<size_t>(P_);
    // A set larger than both parts (a walk-forward fold's test window) gets a larger log.
    if (set.size() * P > log_.size() / 2) log_ = be_.alloc(2 * set.size() * P);
    std::vector<MetricsAccumulator> acc;
    for (size_t m = 0; m < P; ++m) acc.emplace_back(set.outputs, running ? running + m : nullptr);
    const size_t in = set.inputShape.size();
    const size_t out = static_cast<size_t>(set.outputs);
    const size_t n = set.size();
    if (outputs && outputs_.size() < n * out * P) outputs_ = be_.alloc(n * out * P);
    size_t chunkStart = 0;
    for (size_t first = 0; first < n; first += static_cast<size_t>(cfg_.batchSize)) {
        const int count = static_cast<int>(std::min<size_t>(cfg_.batchSize, n - first));
        if (first % chunk_ == 0) {
            chunkStart = first;
            stage(set, {}, first, std::min(chunk_, n - first));
        }
        const size_t at = (first - chunkStart) * P;
        const BufRef x = BufRef(x_) + at * in;
        const BufRef t = BufRef(t_) + at * out;
        BufRef y = net_.forward(x, count, false);
        loss_->compute(y, t, count, P_);
        be_.recordOutcomes({count * P_, set.outputs, loss_->prediction(y), t, loss_->perSample(),
                            BufRef(log_) + 2 * first * P, flag_, -1.0f, codes_, P_});
        if (outputs) {
            const size_t cols = static_cast<size_t>(count) * out;
            if (P == 1)
                be_.copy({loss_->prediction(y), BufRef(outputs_) + first * out, cols});
            else  // model m's rows to its own block
                be_.copy2d({loss_->prediction(y), static_cast<int>(cols),
                            BufRef(outputs_) + first * out, static_cast<int>(n * out), P_,
                            static_cast<int>(cols)});
        }
    }
    if (outputs) {
        outputs->resize(n * out * P);
        be_.download(outputs_, outputs->data(), outputs->size());
    }
    hostLog_.resize(2 * n * P);
    be_.download(log_, hostLog_.data(), hostLog_.size());
    std::vector<EpochMetrics> r;
    for (size_t m = 0; m < P; ++m) {
        acc[m].addOutcomes(modelLog(static_cast<int>(m), n), n);
        r.push_back(acc[m].result());
    }
    return r;
}

std::vector<AttentionScores> Trainer::validationScores(size_t index, std::vector<float>* outputs) {
    const SampleSet& v = data_.validation.size() ? data_.validation : data_.train;
    if (index >= v.size()) return {};
    stage(v, {}, index, 1);
    const BufRef y = net_.forward(x_, 1, false);
    if (outputs) {
        loss_->compute(y, t_, 1, P_);  // the probabilities of cross-entropy
        outputs->resize(static_cast<size_t>(v.outputs));
        be_.download(loss_->prediction(y), outputs->data(), outputs->size());
    }
    return net_.readScores(0);
}

namespace {
nlohmann::json averagesJson(const RunningAverages& a) {
    return {{"loss", a.loss},
            {"accuracyPct", a.accuracyPct},
            {"missedPct", a.missedPct},
            {"started", a.started}};
}
RunningAverages averagesOf(const nlohmann::json& j) {
    RunningAverages a;
    a.loss = j.at("loss").get<double>();
    a.accuracyPct = j.at("accuracyPct").get<double>();
    a.missedPct = j.at("missedPct").get<double>();
    a.started = j.at("started").get<bool>();
    return a;
}
}  // namespace

nlohmann::json Trainer::saveState(TensorMap& tensors) {
    if (P_ > 1) throw std::runtime_error("checkpoints of a population are not supported");
    opt_->saveState(tensors, "opt");
    return {{"epoch", epoch_},
            {"optimizerSteps", opt_->steps()},
            {"schedule", schedules_[0].state()},
            {"runTrain", averagesJson(runTrain_[0])},
            {"runVal", averagesJson(runVal_[0])},
            {"dropoutStep", net_.dropoutStep()}};
}

void Trainer::loadState(const nlohmann::json& s, const TensorMap& tensors) {
    if (P_ > 1) throw std::runtime_error("checkpoints of a population are not supported");
    opt_->loadState(tensors, "opt", s.at("optimizerSteps").get<long long>());
    schedules_[0].setState(s.at("schedule"));
    runTrain_[0] = averagesOf(s.at("runTrain"));
    runVal_[0] = averagesOf(s.at("runVal"));
    net_.setDropoutStep(s.at("dropoutStep").get<uint64_t>());
    epoch_ = s.at("epoch").get<int>();
}

}  // namespace nnwb
