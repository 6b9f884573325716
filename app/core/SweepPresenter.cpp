#include "app/core/SweepPresenter.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include "app/core/BackgroundJobs.h"
#include "app/core/CallQueue.h"
#include "app/runs/RunsDbPath.h"
#include "app/sweep/BundleImport.h"
#include "app/sweep/Coordinator.h"
#include "app/sweep/SweepReadModel.h"
#include "model/AtomicFile.h"
#include "model/JsonRead.h"
#include "model/overfitting/Cscv.h"

namespace nnwb {

namespace {

// The spec of `text` as if read from `file`: the loader's errors, FILE:LINE for bad JSON.
sweep::SweepSpec loadSpecText(const std::string& text, const std::string& file) {
    nlohmann::json j;
    try {
        j = parseJson(text, file);  // depth-bounded, FILE:LINE:COL as the CLI's spec reader
    } catch (const JsonReadError& e) {
        throw sweep::SpecError(e.what());
    }
    const std::string dir = QFileInfo(QString::fromStdString(file)).absolutePath().toStdString();
    return sweep::SweepSpec::fromJson(j, file, dir);
}

SweepSnapshot readSnapshot(const std::string& db, int64_t id, const sweep::SweepSpec& spec) {
    RunStore store(db, false);
    SweepStore sweeps(store);
    SweepSnapshot s;
    const auto row = sweeps.sweep(id);
    if (!row) throw std::runtime_error("no sweep " + std::to_string(id) + " in " + db);
    s.sweep = *row;
    s.trials = sweeps.trials(id);
    for (const sweep::SpecParam& p : spec.params) s.parameters.push_back(p.def.name);
    s.objective = spec.objective.metric;
    s.minimize = spec.objective.minimize;
    if (spec.second) s.secondObjective = spec.second->metric;
    // The figures `sweep show` reports (its read model), PBO with S = 16 as the CLI's default.
    s.report = sweepShowReport(store, s.sweep, spec, s.trials, kCscvDefaultBlocks);
    return s;
}

}  // namespace

SweepPresenter::SweepPresenter(QObject* parent)
    : QObject(parent), calls_(std::make_shared<CallQueue>(this, "runQueuedCalls")) {
    timer_.setInterval(800);
    connect(&timer_, &QTimer::timeout, this, &SweepPresenter::poll);
}

SweepPresenter::~SweepPresenter() {
    calls_->close();
    if (thread_.joinable()) {
        if (const int64_t id = threadSweep_.load(); id > 0) {
            try {
                RunStore store(runsDbPath(path_.toStdString()), false);
                SweepStore(store).requestStop(id);
            } catch (const std::exception&) {
                // the coordinator still ends when its trials do
            }
        }
        thread_.join();
    }
}

void SweepPresenter::runQueuedCalls() {
    calls_->run();
}

void SweepPresenter::setDatabase(const QString& path) {
    path_ = path;
}

QString SweepPresenter::cliPath() {
    const QString env = qEnvironmentVariable("NNWB_CLI");
    if (!env.isEmpty()) return env;
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& p : {dir + "/nnwb-cli", dir + "/../app/nnwb-cli"})
        if (QFileInfo(p).isExecutable()) return QFileInfo(p).canonicalFilePath();
    return dir + "/nnwb-cli";
}

QString SweepPresenter::specFolder() const {
    const QFileInfo db(QString::fromStdString(runsDbPath(path_.toStdString())));
    return db.absolutePath() + "/" + db.completeBaseName() + "-sweeps/specs";
}

QString SweepPresenter::writeSpec(const QString& text, const QString& file) {
    QString out = file;
    if (out.isEmpty()) {
        QDir().mkpath(specFolder());
        out = specFolder() + "/sweep-" +
              QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")) +
              ".json";
    }
    writeFileAtomic(out.toStdString(), text.toStdString());
    return QFileInfo(out).absoluteFilePath();
}

QString SweepPresenter::saveExperiment(const Experiment& e) const {
    Experiment copy = e;
    try {
        copy.data = e.dataWithAbsoluteFile();
        QDir().mkpath(specFolder());
        const QString path =
            specFolder() + "/experiment-" +
            QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")) + ".json";
        copy.save(path.toStdString());
        return path;
    } catch (const std::exception&) {
        return {};
    }
}

void SweepPresenter::check(const QString& text, const QString& file) {
    const std::string label =
        file.isEmpty() ? (specFolder() + "/new-spec.json").toStdString() : file.toStdString();
    BackgroundJobs::instance().post([calls = calls_, t = text.toStdString(), label, this] {
        QString error;
        try {
            loadSpecText(t, label);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        calls->post([this, error] { Q_EMIT specChecked(error); });
    });
}

bool SweepPresenter::parseSlotText(const QString& text, std::vector<Slot>& out) {
    std::string t = text.trimmed().toStdString();
    if (!t.empty() && t.find_first_not_of("0123456789") == std::string::npos) t = "cpu=" + t;
    try {
        out = parseSlots(t, usableCpus());
    } catch (const std::invalid_argument& e) {
        Q_EMIT failed(tr("Slots: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
    return true;
}

bool SweepPresenter::start(const QString& text, const QString& file, const QString& slotText) {
    if (running_) {
        Q_EMIT failed(tr("A sweep is already running: stop it first."));
        return false;
    }
    std::vector<Slot> slots;
    if (!parseSlotText(slotText, slots)) return false;
    QString saved;
    try {
        saved = writeSpec(text, file);
    } catch (const std::exception& e) {
        Q_EMIT failed(QString::fromStdString(e.what()));
        return false;
    }
    Q_EMIT specSaved(saved);
    const std::string specFile = saved.toStdString(), specText = text.toStdString();
    launch(
        [specFile, specText](RunStore& store, sweep::SweepSpec& spec) {
            spec = loadSpecText(specText, specFile);
            return SweepStore(store).create(spec.name, spec.source, specFile);
        },
        std::move(slots));
    return true;
}

bool SweepPresenter::resume(int64_t id, const QString& slotText) {
    if (running_) {
        Q_EMIT failed(tr("A sweep is already running: stop it first."));
        return false;
    }
    std::vector<Slot> slots;
    if (!parseSlotText(slotText, slots)) return false;
    launch(
        [id](RunStore& store, sweep::SweepSpec& spec) {
            SweepStore sweeps(store);
            const auto row = sweeps.sweep(id);
            if (!row) throw std::runtime_error("no sweep " + std::to_string(id));
            spec = storedSpec(*row);
            sweeps.claim(id);
            return id;
        },
        std::move(slots));
    return true;
}

void SweepPresenter::launch(std::function<int64_t(RunStore&, sweep::SweepSpec&)> open,
                            std::vector<Slot> slots) {
    if (thread_.joinable()) thread_.join();  // the last sweep's thread has ended
    running_ = true;
    runningId_ = 0;
    threadSweep_ = 0;
    CoordinatorOptions co;
    co.cliPath = cliPath().toStdString();
    co.progress = nullptr;
    co.slots = std::move(slots);
    const std::string db = runsDbPath(path_.toStdString());
    thread_ = std::thread([calls = calls_, open = std::move(open), co, db, this] {
        int64_t id = 0;
        try {
            RunStore store(db);
            auto spec = std::make_shared<sweep::SweepSpec>();
            id = open(store, *spec);
            threadSweep_ = id;
            calls->post([this, id, spec] {
                runningId_ = id;
                shownId_ = id;
                shownSpec_ = spec;
                timer_.start();
                Q_EMIT started(id);
                poll();  // its first trials show at once, not a tick later
            });
            const std::string status = Coordinator(*spec, id, store, co).run();
            calls->post([this, id, status] {
                running_ = false;
                runningId_ = 0;
                poll();
                refreshList();
                Q_EMIT finished(id, QString::fromStdString(status));
            });
        } catch (const std::exception& e) {
            const QString error = QString::fromStdString(e.what());
            calls->post([this, error] {
                running_ = false;
                runningId_ = 0;
                Q_EMIT failed(error);
            });
        }
    });
}

void SweepPresenter::stop() {
    if (!running_ || runningId_ == 0) return;
    const std::string db = runsDbPath(path_.toStdString());
    BackgroundJobs::instance().post([calls = calls_, db, id = runningId_, this] {
        try {
            RunStore store(db, false);
            SweepStore(store).requestStop(id);
        } catch (const std::exception& e) {
            const QString error = QString::fromStdString(e.what());
            calls->post([this, error] { Q_EMIT failed(error); });
        }
    });
}

void SweepPresenter::importBundle(const QString& dir) {
    const std::string db = runsDbPath(path_.toStdString());
    BackgroundJobs::instance().post([calls = calls_, db, d = dir.toStdString(), this] {
        try {
            RunStore store(db);
            const BundleImportReport r = nnwb::importBundle(store, d);
            QString summary =
                r.sweepId == 0
                    ? tr("Nothing imported from %1: %2 tasks without a result yet")
                          .arg(QString::fromStdString(d))
                          .arg(r.waiting)
                    : tr("Sweep %1%2: %3 trials imported, %4 unchanged, %5 without a result yet, "
                         "%6 refused")
                          .arg(r.sweepId)
                          .arg(r.created ? tr(" (new)") : QString())
                          .arg(r.imported)
                          .arg(r.unchanged)
                          .arg(r.waiting)
                          .arg(r.refused.size());
            for (const std::string& why : r.refused)
                summary +=
                    QStringLiteral("\n") + tr("refused: %1").arg(QString::fromStdString(why));
            const qint64 id = r.sweepId;
            calls->post([this, id, summary] { Q_EMIT bundleImported(id, summary); });
        } catch (const std::exception& e) {  // no bundle there, a store that cannot be written
            const QString error = tr("Nothing imported: %1").arg(QString::fromStdString(e.what()));
            calls->post([this, error] { Q_EMIT bundleImported(0, error); });
        }
    });
}

void SweepPresenter::refreshList() {
    const std::string db = runsDbPath(path_.toStdString());
    // Two background threads may answer out of order: only the newest request's answer shows.
    const int request = ++listRequest_;
    BackgroundJobs::instance().post([calls = calls_, db, request, this] {
        std::vector<SweepRow> rows;
        QString error;
        try {
            if (QFileInfo::exists(QString::fromStdString(db))) {
                RunStore store(db, false);
                rows = SweepStore(store).list();
            }
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        calls->post([this, rows, error, request] {
            if (request == listRequest_) Q_EMIT listed(rows, error);
        });
    });
}

void SweepPresenter::show(int64_t id) {
    shownId_ = id;
    shownSpec_.reset();
    const std::string db = runsDbPath(path_.toStdString());
    BackgroundJobs::instance().post([calls = calls_, db, id, this] {
        try {
            RunStore store(db, false);
            const auto row = SweepStore(store).sweep(id);
            if (!row) throw std::runtime_error("no sweep " + std::to_string(id));
            auto spec = std::make_shared<const sweep::SweepSpec>(storedSpec(*row));
            calls->post([this, id, spec] {
                if (shownId_ != id) return;
                shownSpec_ = spec;
                poll();
                if (running_ && runningId_ == id) timer_.start();
            });
        } catch (const std::exception& e) {
            const QString error = QString::fromStdString(e.what());
            calls->post([this, error] { Q_EMIT failed(error); });
        }
    });
}

void SweepPresenter::poll() {
    if (!shownSpec_ || reading_) return;
    if (!running_ || runningId_ != shownId_) timer_.stop();  // one last read, then rest
    reading_ = true;
    const std::string db = runsDbPath(path_.toStdString());
    BackgroundJobs::instance().post([calls = calls_, db, id = shownId_, spec = shownSpec_, this] {
        std::optional<SweepSnapshot> snap;
        QString error;
        try {
            snap = readSnapshot(db, id, *spec);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        calls->post([this, snap, error, id] {
            reading_ = false;
            if (!error.isEmpty()) return Q_EMIT failed(error);
            if (snap && id == shownId_) Q_EMIT shown(*snap);
        });
    });
}

}  // namespace nnwb
