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
    : be_(be),
      net_(net),
      cfg_(cfg),
      data_(data),
      schedule_(cfg.lrSchedule, cfg.optimizer.learningRate, cfg.epochs),
      monitor_(effectiveMonitor(cfg.monitor, data.validation.size() > 0, data.train.outputs == 3)) {
    if (data.train.size() == 0) throw TrainingError("the training part has no samples");
    if (data.train.inputShape != net.inputShape())
        throw TrainingError("the data gives samples of shape " + data.train.inputShape.str() +
                            " but the network expects " + net.inputShape().str());
    if (static_cast<int>(net.outputShape().size()) != data.train.outputs)
        throw TrainingError("the network gives " + std::to_string(net.outputShape().size()) +
                            " outputs but the targets have " + std::to_string(data.train.outputs));
    const int batch = cfg.batchSize;
    net.build(be, batch);
    net.initWeights(cfg.seed);
    net.setDropoutSeed(cfg.seed);  // dropout masks: (seed + layer, training batch)
    net.setDropoutStep(0);
    loss_ = std::make_unique<Loss>(be, cfg.loss, data.train.outputs, batch);
    opt_ = std::make_unique<Optimizer>(be, cfg.optimizer, net.params());
    const size_t in = net.inputShape().size(), out = static_cast<size_t>(data.train.outputs);
    const size_t most = std::max(data.train.size(), data.validation.size());
    // Staging chunks of at most ~64 MiB, whole batches, no more than the largest part.
    const size_t perSample = (in + out) * sizeof(float);
    const size_t b = static_cast<size_t>(batch);
    chunk_ = std::max<size_t>(1, (size_t(64) << 20) / perSample / b) * b;
    chunk_ = std::min(chunk_, (most + b - 1) / b * b);
    x_ = be.alloc(chunk_ * in);
    t_ = be.alloc(chunk_ * out);
    log_ = be.alloc(2 * std::max<size_t>(most, 1));
    flag_ = be.alloc(1);
    const std::vector<float> codes = MetricsAccumulator::codeWeights(data.train.outputs);
    if (!codes.empty()) {
        codes_ = be.alloc(codes.size());
        be.upload(codes_, codes.data(), codes.size());
    }
    gradNorms_ = be.alloc((data.train.size() + b - 1) / b + 1);
    try {
        classWeights_ = classWeightsFor(cfg.classWeights, data.train);
    } catch (const std::invalid_argument& e) {
        throw TrainingError(e.what());
    }
    if (!classWeights_.empty()) w_ = be.alloc(chunk_);
}

void Trainer::stage(const SampleSet& set, const std::vector<size_t>& order, size_t first,
                    size_t count) {
    const size_t in = set.inputShape.size();
    const size_t out = static_cast<size_t>(set.outputs);
    hostX_.resize(count * in);
    hostT_.resize(count * out);
    for (size_t i = 0; i < count; ++i) {
        const size_t s = order.empty() ? first + i : order[first + i];
        std::copy_n(set.input(s), in, hostX_.data() + i * in);
        std::copy_n(set.target(s), out, hostT_.data() + i * out);
    }
    be_.upload(x_, hostX_.data(), hostX_.size());
    be_.upload(t_, hostT_.data(), hostT_.size());
    if (!classWeights_.empty()) {
        hostW_.resize(count);
        for (size_t i = 0; i < count; ++i)
            hostW_[i] = static_cast<float>(
                sampleWeight(hostT_.data() + i * out, set.outputs, classWeights_));
        be_.upload(w_, hostW_.data(), hostW_.size());
    }
}

float Trainer::readFlag() {
    float f = -1.0f;
    be_.download(flag_, &f, 1);
    return f;
}

void Trainer::collect(MetricsAccumulator& acc, size_t samples, int epoch,
                      const std::vector<size_t>& order) {
    const float flag = readFlag();
    hostLog_.resize(2 * samples);
    be_.download(log_, hostLog_.data(), hostLog_.size());
    if (flag >= 0.0f) {
        const size_t b = static_cast<size_t>(flag);
        const size_t first = b * static_cast<size_t>(cfg_.batchSize);
        bool nan = true;
        for (size_t i = first; i < samples && i < first + static_cast<size_t>(cfg_.batchSize); ++i)
            if (!std::isfinite(hostLog_[2 * i])) {
                nan = std::isnan(hostLog_[2 * i]);
                break;
            }
        // The optimizer stopped at the diverging batch: run it again to find the layer.
        const size_t count = std::min<size_t>(cfg_.batchSize, data_.train.size() - first);
        stage(data_.train, order, first, count);
        const std::string where = firstNonFinite(net_, x_, static_cast<int>(count));
        throw TrainingError(
            "the loss became " + std::string(nan ? "NaN" : "infinite") + " in epoch " +
            std::to_string(epoch) + ", batch " + std::to_string(b + 1) +
            "; first non-finite value: " + (where.empty() ? "none in the layers" : where));
    }
    acc.addOutcomes(hostLog_.data(), samples);
}

EpochReport Trainer::runEpoch(TrainControl* control,
                              const std::function<void(const ProgressReport&)>& progress,
                              bool* completed) {
    const SampleSet& set = data_.train;
    const size_t n = set.size();
    const int outputs = set.outputs;
    const size_t in = set.inputShape.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    if (cfg_.shuffle) {
        Rng rng(cfg_.seed ^ (0xA5A5A5A5ull + static_cast<uint64_t>(epoch_) * 7919ull));
        for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    }
    EpochReport rep;
    rep.epoch = epoch_ + 1;
    rep.taskMetrics = outputs == 3;
    rep.learningRate = schedule_.rate(rep.epoch);
    opt_->setLearningRate(rep.learningRate);
    MetricsAccumulator acc(outputs, &runTrain_);
    be_.fill({flag_, 1, -1.0f});
    const auto start = Clock::now();
    auto lastReport = start - std::chrono::seconds(1);  // report the first batch at once
    size_t done = 0, chunkStart = 0;
    bool stopped = false;
    int batchIndex = 0;
    double pausedSeconds = 0.0;  // time blocked in a pause: not training time
    auto activeSeconds = [&] { return std::max(0.0, secondsSince(start) - pausedSeconds); };
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
        if (first % chunk_ == 0) {
            chunkStart = first;
            stage(set, order, first, std::min(chunk_, n - first));
        }
        const size_t at = first - chunkStart;
        const BufRef x = BufRef(x_) + at * in;
        const BufRef t = BufRef(t_) + at * static_cast<size_t>(outputs);
        net_.zeroGrad();
        BufRef y = net_.forward(x, count, true);
        loss_->compute(y, t, count);
        if (!classWeights_.empty())
            be_.scaleRows({count, outputs, BufRef(w_) + at, loss_->gradient()});
        net_.backward(x, loss_->gradient(), count);
        const ParamArena& arena = net_.paramArena();
        be_.clipByGlobalNorm({arena.used(), arena.grads(), static_cast<float>(cfg_.clipNorm),
                              BufRef(gradNorms_) + static_cast<size_t>(batchIndex)});
        be_.recordOutcomes({count, outputs, loss_->prediction(y), t, loss_->perSample(),
                            BufRef(log_) + 2 * first, flag_, static_cast<float>(batchIndex),
                            codes_});
        opt_->step(flag_);
        done += static_cast<size_t>(count);
        if (progress && (secondsSince(lastReport) > 0.1 || done == n)) {
            // The one read-back inside an epoch, at most ten times a second: the flag.
            if (readFlag() >= 0.0f) break;
            lastReport = Clock::now();
            ProgressReport p;
            p.epoch = rep.epoch;
            p.done = done;
            p.total = n;
            const double el = activeSeconds();
            p.samplesPerSecond = el > 0 ? done / el : 0.0;
            p.etaSeconds = p.samplesPerSecond > 0 ? (n - done) / p.samplesPerSecond : 0.0;
            progress(p);
        }
    }
    collect(acc, done, rep.epoch, order);  // waits for the device
    const size_t batches = (done + static_cast<size_t>(cfg_.batchSize) - 1) / cfg_.batchSize;
    if (batches > 0) {
        hostNorms_.resize(batches);
        be_.download(gradNorms_, hostNorms_.data(), batches);
        double sum = 0.0;
        for (float v : hostNorms_) {
            rep.gradNormMax = std::max(rep.gradNormMax, double(v));
            sum += v;
        }
        rep.gradNormMean = sum / batches;
    }
    rep.seconds = activeSeconds();
    rep.samplesPerSecond = rep.seconds > 0 ? done / rep.seconds : 0.0;
    rep.train = acc.result();
    if (!stopped) {
        ++epoch_;
        if (data_.validation.size() > 0) {
            std::vector<float> outs;
            rep.validation =
                evaluate(data_.validation, &runVal_, keepValidationOutputs_ ? &outs : nullptr);
            if (keepValidationOutputs_)
                rep.validationOutputs = std::make_shared<const std::vector<float>>(std::move(outs));
        }
        schedule_.observe(monitorValue(monitor_, rep.train, rep.validation), monitor_);
    }
    if (completed) *completed = !stopped;
    return rep;
}

EpochMetrics Trainer::evaluate(const SampleSet& set, RunningAverages* running,
                               std::vector<float>* outputs) {
    // A set larger than both parts (a walk-forward fold's test window) gets a larger log.
    if (set.size() > log_.size() / 2) log_ = be_.alloc(2 * set.size());
    MetricsAccumulator acc(set.outputs, running);
    const size_t in = set.inputShape.size();
    const size_t out = static_cast<size_t>(set.outputs);
    if (outputs && outputs_.size() < set.size() * out) outputs_ = be_.alloc(set.size() * out);
    size_t chunkStart = 0;
    for (size_t first = 0; first < set.size(); first += static_cast<size_t>(cfg_.batchSize)) {
        const int count = static_cast<int>(std::min<size_t>(cfg_.batchSize, set.size() - first));
        if (first % chunk_ == 0) {
            chunkStart = first;
            stage(set, {}, first, std::min(chunk_, set.size() - first));
        }
        const size_t at = first - chunkStart;
        const BufRef x = BufRef(x_) + at * in;
        const BufRef t = BufRef(t_) + at * static_cast<size_t>(set.outputs);
        BufRef y = net_.forward(x, count, false);
        loss_->compute(y, t, count);
        be_.recordOutcomes({count, set.outputs, loss_->prediction(y), t, loss_->perSample(),
                            BufRef(log_) + 2 * first, flag_, -1.0f, codes_});
        if (outputs)
            be_.copy({loss_->prediction(y), BufRef(outputs_) + first * out,
                      static_cast<size_t>(count) * out});
    }
    if (outputs) {
        outputs->resize(set.size() * out);
        be_.download(outputs_, outputs->data(), outputs->size());
    }
    hostLog_.resize(2 * set.size());
    be_.download(log_, hostLog_.data(), hostLog_.size());
    acc.addOutcomes(hostLog_.data(), set.size());
    return acc.result();
}

std::vector<AttentionScores> Trainer::validationScores(size_t index, std::vector<float>* outputs) {
    const SampleSet& v = data_.validation.size() ? data_.validation : data_.train;
    if (index >= v.size()) return {};
    stage(v, {}, index, 1);
    const BufRef y = net_.forward(x_, 1, false);
    if (outputs) {
        loss_->compute(y, t_, 1);  // the probabilities of cross-entropy
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
    opt_->saveState(tensors, "opt");
    return {{"epoch", epoch_},
            {"optimizerSteps", opt_->steps()},
            {"schedule", schedule_.state()},
            {"runTrain", averagesJson(runTrain_)},
            {"runVal", averagesJson(runVal_)},
            {"dropoutStep", net_.dropoutStep()}};
}

void Trainer::loadState(const nlohmann::json& s, const TensorMap& tensors) {
    opt_->loadState(tensors, "opt", s.at("optimizerSteps").get<long long>());
    schedule_.setState(s.at("schedule"));
    runTrain_ = averagesOf(s.at("runTrain"));
    runVal_ = averagesOf(s.at("runVal"));
    net_.setDropoutStep(s.at("dropoutStep").get<uint64_t>());
    epoch_ = s.at("epoch").get<int>();
}

}  // namespace nnwb
