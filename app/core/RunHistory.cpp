#include "app/core/RunHistory.h"

#include <filesystem>

#include <QPointer>

#include "app/core/CallQueue.h"
#include "app/core/QtText.h"
#include "app/runs/RunQuery.h"
#include "app/runs/RunStore.h"
#include "app/runs/StoredRunCsv.h"

namespace nnwb {

RunStore* RunHistory::Connection::open() {
    if (store) return store.get();
    if (path.empty() || !std::filesystem::exists(path)) return nullptr;
    store = std::make_unique<RunStore>(path, false);
    return store.get();
}

RunHistory::RunHistory(QObject* parent)
    : QObject(parent), calls_(std::make_shared<CallQueue>(this, "runQueuedCalls")) {
    thread_ = std::thread([this] { work(); });
}

RunHistory::~RunHistory() {
    calls_->close();
    std::deque<std::function<void(Connection&)>> dropped;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        dropped.swap(queries_);
    }
    wake_.notify_all();
    thread_.join();
}

void RunHistory::runQueuedCalls() {
    calls_->run();
}

void RunHistory::work() {
    for (;;) {
        std::function<void(Connection&)> query;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !queries_.empty(); });
            if (stopping_) return;
            query = std::move(queries_.front());
            queries_.pop_front();
        }
        query(connection_);
    }
}

void RunHistory::ask(QObject* context, Query query) {
    ++pending_;
    const bool hasContext = context != nullptr;
    QPointer<QObject> guard(context);
    auto run = [calls = calls_, query = std::move(query), hasContext, guard, this](Connection& c) {
        std::function<void()> answer = query(c);
        // Runs on this object's thread only while it lives (the destructor closes calls).
        calls->post([this, answer = std::move(answer), hasContext, guard] {
            --pending_;
            if (answer && (!hasContext || guard)) answer();
        });
    };
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queries_.push_back(std::move(run));
    }
    wake_.notify_one();
}

void RunHistory::setDatabase(const QString& path) {
    path_ = path;
    ask(nullptr, [p = path.toStdString()](Connection& c) {
        c.store.reset();
        c.path = p;
        return std::function<void()>();
    });
}

void RunHistory::list(QObject* context,
                      std::function<void(const Runs& runs, const QString& error)> done) {
    ask(context, [done = std::move(done)](Connection& c) -> std::function<void()> {
        Runs runs;
        QString error;
        try {
            if (RunStore* s = c.open()) {
                s->markInterrupted();
                runs = s->list();
            }
        } catch (const std::exception& e) {
            error = q(e.what());
            c.store.reset();  // opened again on the next query
        }
        return [done, runs = std::move(runs), error] { done(runs, error); };
    });
}

void RunHistory::load(const std::vector<int64_t>& ids, QObject* context,
                      std::function<void(const Runs& runs, const QString& error)> done) {
    ask(context, [ids, done = std::move(done)](Connection& c) -> std::function<void()> {
        Runs runs;
        QString error;
        try {
            if (RunStore* s = c.open()) {
                for (int64_t id : ids)
                    if (auto run = s->get(id)) runs.push_back(std::move(*run));
                // An ensemble's member runs follow the selected runs (their curves are drawn
                // thin under the ensemble's, docs/ensembles.md).
                const size_t selected = runs.size();
                for (size_t k = 0; k < selected; ++k)
                    if (runs[k].ensembleMembers > 0)
                        for (StoredRun& m : s->members(runs[k].id)) runs.push_back(std::move(m));
            }
        } catch (const std::exception& e) {
            error = q(e.what());
        }
        return [done, runs = std::move(runs), error] { done(runs, error); };
    });
}

void RunHistory::lastRunOf(const QString& path, QObject* context,
                           std::function<void(const std::optional<StoredRun>& run)> done) {
    ask(context,
        [p = path.toStdString(), done = std::move(done)](Connection& c) -> std::function<void()> {
            std::optional<StoredRun> run;
            try {
                if (RunStore* s = c.open())
                    if (const auto id = s->lastRunOfExperiment(p)) run = s->get(*id);
            } catch (const std::exception&) {
                // the store cannot be read: the experiment opens without its last curves
            }
            return [done, run = std::move(run)] { done(run); };
        });
}

namespace {
// A write's answer: `done` with "" or the error.
std::function<void()> answerOf(const std::function<void(const QString&)>& done,
                               const QString& error) {
    if (!done) return {};
    return [done, error] { done(error); };
}
}  // namespace

void RunHistory::setMeta(int64_t id, const std::string& name, const std::string& tags,
                         const std::string& note, QObject* context,
                         std::function<void(const QString& error)> done) {
    ask(context, [=, done = std::move(done)](Connection& c) {
        QString error;
        try {
            if (RunStore* s = c.open()) s->setMeta(id, name, tags, note);
        } catch (const std::exception& e) {
            error = q(e.what());
        }
        return answerOf(done, error);
    });
}

void RunHistory::remove(const std::vector<int64_t>& ids, QObject* context,
                        std::function<void(const QString& error)> done) {
    ask(context, [ids, done = std::move(done)](Connection& c) {
        QString error;
        for (int64_t id : ids) {
            try {
                if (RunStore* s = c.open()) s->remove(id);
            } catch (const std::exception& e) {
                error = q(e.what());
            }
        }
        return answerOf(done, error);
    });
}

void RunHistory::exportCsv(int64_t id, const QString& path, QObject* context,
                           std::function<void(const QString& error)> done) {
    ask(context, [id, p = path.toStdString(), done = std::move(done)](Connection& c) {
        QString error;
        try {
            RunStore* s = c.open();
            const auto run = s ? s->get(id) : std::nullopt;
            if (!run) throw std::runtime_error("run #" + std::to_string(id) + " is not stored");
            writeStoredRunCsv(p, *run);
        } catch (const std::exception& e) {
            error = q(e.what());
        }
        return answerOf(done, error);
    });
}

FilteredRuns filterRuns(const std::vector<StoredRun>& runs, const QString& filter) {
    FilteredRuns out;
    try {
        const RunFilter f(filter.toStdString());
        for (const StoredRun& r : runs)
            if (f.matches(r)) out.runs.push_back(r);
    } catch (const std::invalid_argument& e) {
        out.error = q(e.what());
        out.runs = runs;
    }
    return out;
}

}  // namespace nnwb
