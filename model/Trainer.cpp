#include "model/Trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "model/Rng.h"

namespace nnwb {

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

Trainer::Trainer(Backend& be, Network& net, const TrainingConfig& cfg, const DataSplit& data)
    : be_(be), net_(net), cfg_(cfg), data_(data) {
    if (data.train.size() == 0) throw TrainingError("the training part has no samples");
    if (data.train.inputShape != net.inputShape())
        throw TrainingError("the data gives samples of shape " + data.train.inputShape.str() +
                            " but the network expects " + net.inputShape().str());
    if (static_cast<int>(net.outputShape().size()) != data.train.outputs)
        throw TrainingError("the network gives " + std::to_string(net.outputShape().size()) +
                            " outputs but the targets have " +
                            std::to_string(data.train.outputs));
    const int batch = cfg.batchSize;
    net.build(be, batch);
    net.initWeights(cfg.seed);
    loss_ = std::make_unique<Loss>(be, cfg.loss, data.train.outputs, batch);
    opt_ = std::make_unique<Optimizer>(be, cfg.optimizer, net.params());
    x_ = be.alloc(static_cast<size_t>(batch) * net.inputShape().size());
    t_ = be.alloc(static_cast<size_t>(batch) * data.train.outputs);
}

void Trainer::loadBatch(const SampleSet& set, const std::vector<size_t>& order, size_t first,
                        int count) {
    const size_t in = set.inputShape.size();
    const size_t out = static_cast<size_t>(set.outputs);
    hostX_.resize(static_cast<size_t>(count) * in);
    hostT_.resize(static_cast<size_t>(count) * out);
    for (int i = 0; i < count; ++i) {
        const size_t s = order.empty() ? first + i : order[first + i];
        std::copy_n(set.input(s), in, hostX_.data() + i * in);
        std::copy_n(set.target(s), out, hostT_.data() + i * out);
    }
    be_.upload(x_, hostX_.data(), hostX_.size());
    be_.upload(t_, hostT_.data(), hostT_.size());
}

EpochReport Trainer::runEpoch(TrainControl* control,
                              const std::function<void(const ProgressReport&)>& progress,
                              bool* completed) {
    const SampleSet& set = data_.train;
    const size_t n = set.size();
    const int outputs = set.outputs;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    if (cfg_.shuffle) {
        Rng rng(cfg_.seed ^ (0xA5A5A5A5ull + static_cast<uint64_t>(epoch_) * 7919ull));
        for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    }
    EpochReport rep;
    rep.epoch = epoch_ + 1;
    rep.taskMetrics = outputs == 3;
    MetricsAccumulator acc(outputs, &runTrain_);
    const auto start = Clock::now();
    auto lastReport = start - std::chrono::seconds(1);  // report the first batch at once
    size_t done = 0;
    bool stopped = false;
    int batchIndex = 0;
    for (size_t first = 0; first < n; first += static_cast<size_t>(cfg_.batchSize), ++batchIndex) {
        if (control && !control->checkpoint()) {
            stopped = true;
            break;
        }
        const int count = static_cast<int>(std::min<size_t>(cfg_.batchSize, n - first));
        loadBatch(set, order, first, count);
        net_.zeroGrad();
        BufRef y = net_.forward(x_, count, true);
        loss_->compute(y, t_, count);
        net_.backward(x_, loss_->gradient(), count);
        opt_->step();
        hostOut_.resize(static_cast<size_t>(count) * outputs);
        hostLoss_.resize(static_cast<size_t>(count));
        be_.download(loss_->prediction(y), hostOut_.data(), hostOut_.size());
        be_.download(loss_->perSample(), hostLoss_.data(), hostLoss_.size());
        for (float l : hostLoss_)
            if (!std::isfinite(l))
                throw TrainingError("the loss became " + std::string(std::isnan(l) ? "NaN" : "infinite") +
                                    " in epoch " + std::to_string(rep.epoch) + ", batch " +
                                    std::to_string(batchIndex + 1));
        acc.add(hostOut_.data(), hostT_.data(), hostLoss_.data(), static_cast<size_t>(count));
        done += static_cast<size_t>(count);
        if (progress && (secondsSince(lastReport) > 0.1 || done == n)) {
            lastReport = Clock::now();
            ProgressReport p;
            p.epoch = rep.epoch;
            p.done = done;
            p.total = n;
            const double el = secondsSince(start);
            p.samplesPerSecond = el > 0 ? done / el : 0.0;
            p.etaSeconds = p.samplesPerSecond > 0 ? (n - done) / p.samplesPerSecond : 0.0;
            progress(p);
        }
    }
    be_.synchronize();
    rep.seconds = secondsSince(start);
    rep.samplesPerSecond = rep.seconds > 0 ? done / rep.seconds : 0.0;
    rep.train = acc.result();
    if (!stopped) {
        ++epoch_;
        if (data_.validation.size() > 0) rep.validation = evaluate(data_.validation, &runVal_);
    }
    if (completed) *completed = !stopped;
    return rep;
}

EpochMetrics Trainer::evaluate(const SampleSet& set, RunningAverages* running) {
    MetricsAccumulator acc(set.outputs, running);
    for (size_t first = 0; first < set.size(); first += static_cast<size_t>(cfg_.batchSize)) {
        const int count = static_cast<int>(std::min<size_t>(cfg_.batchSize, set.size() - first));
        loadBatch(set, {}, first, count);
        BufRef y = net_.forward(x_, count, false);
        loss_->compute(y, t_, count);
        hostOut_.resize(static_cast<size_t>(count) * set.outputs);
        hostLoss_.resize(static_cast<size_t>(count));
        be_.download(loss_->prediction(y), hostOut_.data(), hostOut_.size());
        be_.download(loss_->perSample(), hostLoss_.data(), hostLoss_.size());
        acc.add(hostOut_.data(), hostT_.data(), hostLoss_.data(), static_cast<size_t>(count));
    }
    return acc.result();
}

std::vector<AttentionScores> Trainer::validationScores(size_t index) {
    const SampleSet& v = data_.validation.size() ? data_.validation : data_.train;
    if (index >= v.size()) return {};
    loadBatch(v, {}, index, 1);
    net_.forward(x_, 1, false);
    return net_.readScores(0);
}

}  // namespace nnwb
