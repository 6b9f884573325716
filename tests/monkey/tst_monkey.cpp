// GUI "monkey": from the default experiment, a seeded random sequence of user actions drawn from
// everything the window offers (every menu and toolbar action that opens no file dialog, every
// visible field of every pane and tab with valid and invalid values, layer add / remove / move /
// duplicate, undo / redo, presets, device switch, train / pause / stop at random moments,
// comparison runs, tab switches, files good and bad opened from the fixture folder, window
// resizes). After every action it checks invariants:
//   - Train is enabled iff the stack is valid, the data pane names no problem with the data
//     (a price file too short for one window) and nothing is training;
//   - results on show are the document's last run's, or the note above them says they are not;
//   - undo then redo gives back the same experiment JSON;
//   - no Qt warning about a deleted object or a null pointer.
// The choices depend only on the seed (a fixed number of random draws per action), so a
// sequence can be replayed: NNWB_MONKEY_SEEDS=7 NNWB_MONKEY_ACTIONS=1234. Every action is also
// written, as it is taken, to monkey-seed-S.log in the working folder (read it after a crash);
// a failed invariant prints the seed and the whole action list. Defaults: seed 1, 300 actions.
// Main (GUI) thread only.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/LayerStackModel.h"
#include "app/core/Presets.h"
#include "common/TestUtil.h"
#include "nnwb/TestPaths.h"
#include "ui/ComparisonRunsTable.h"
#include "ui/ComparisonView.h"
#include "ui/DataPanel.h"
#include "ui/LayerStackEditor.h"
#include "ui/MainWindow.h"

using namespace nnwb;

namespace {

// Qt warnings that mean a bug (a deleted or null object, a bad connection, bad painting).
QStringList g_badMessages;
QtMessageHandler g_previousHandler = nullptr;

void monkeyMessageHandler(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
    if (type != QtDebugMsg && type != QtInfoMsg) {
        static const char* patterns[] = {"deleted",   "null",       "destroyed", "QObject::",
                                         "QWidget::", "QPainter::", "QLayout::", "dangling"};
        for (const char* p : patterns)
            if (msg.contains(QLatin1String(p), Qt::CaseInsensitive)) {
                g_badMessages << msg;
                break;
            }
    }
    if (g_previousHandler) g_previousHandler(type, ctx, msg);
}

class Monkey {
public:
    Monkey(MainWindow& w, quint32 seed, const QString& logPath)
        : w_(w), rng_(seed), seed_(seed), log_(logPath.toStdString()) {
        const QString fx = QStringLiteral(NNWB_TEST_FIXTURES);
        for (const char* f : {"mt4.csv", "mt5_tab.csv", "generic_comma.csv", "mt5_utf16le.csv",
                              "bad_high_low.csv", "binary.csv", "empty.csv", "truncated.csv",
                              "header_only.csv", "attention/attention-synthetic.json",
                              "attention/stack-synthetic.json", "attention/gpt-synthetic.json"})
            files_ << fx + QLatin1Char('/') + QLatin1String(f);
        const QString tmp = QString::fromStdString(test::tempDir());
        std::ofstream(tmp.toStdString() + "/broken.json") << "{\"formatVersion\": 1, \"model\":";
        std::ofstream(tmp.toStdString() + "/notes.txt") << "not a price file\n";
        files_ << tmp + "/broken.json" << tmp + "/notes.txt" << tmp + "/missing.csv" << tmp;
        savePath_ = tmp + "/saved.json";
        for (const PresetInfo& p : listPresets()) presets_ << p.path;
    }

    const QStringList& actions() const { return actions_; }

    // One action; false with `why` when an invariant fails.
    bool step(int i, QString* why) {
        const quint32 kind = draw() % 1000, a = draw(), b = draw(), c = draw();
        QString what;
        try {  // an exception out of the window's code is a defect too
            QElapsedTimer t;
            t.start();
            what = act(kind, a, b, c);
            actions_ << QStringLiteral("%1: %2").arg(i).arg(what);
            log_ << actions_.back().toStdString() << std::endl;
            settle();
            const qint64 acted = t.nsecsElapsed();
            const bool ok = check(why);
            account(what, acted, t.nsecsElapsed() - acted);
            if (profile_ && t.nsecsElapsed() > 500000000)
                std::printf("monkey: slow action %d: %s (%.0f + %.0f ms)\n", i, qPrintable(what),
                            acted / 1e6, (t.nsecsElapsed() - acted) / 1e6);
            return ok;
        } catch (const std::exception& e) {
            actions_ << QStringLiteral("%1: %2 (threw)").arg(i).arg(what);
            log_ << actions_.back().toStdString() << std::endl;
            *why = QStringLiteral("exception: %1").arg(QString::fromUtf8(e.what()));
            return false;
        }
    }

    // Where the time went, per kind of action (its text up to the first quote or digit):
    // NNWB_MONKEY_PROFILE=1 prints it at the end of each seed.
    void printProfile() const {
        std::vector<std::pair<QString, Cost>> rows(costs_.begin(), costs_.end());
        std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
            return x.second.act + x.second.check > y.second.act + y.second.check;
        });
        std::printf("monkey: %-32s %6s %9s %9s %9s\n", "kind", "count", "act s", "check s",
                    "max ms");
        for (const auto& [k, c] : rows)
            std::printf("monkey: %-32s %6d %9.2f %9.2f %9.1f\n", qPrintable(k), c.count,
                        c.act / 1e9, c.check / 1e9, c.max / 1e6);
        std::fflush(stdout);
    }

    // Stops everything and lets the workers end (the window's destructor does the rest).
    void finish() {
        w_.stopTraining();
        w_.comparison()->stopAll();
        QElapsedTimer t;
        t.start();
        while ((w_.controller()->isBusy() || w_.comparison()->isBusy()) && t.elapsed() < 120000)
            QTest::qWait(20);
    }

private:
    quint32 draw() { return static_cast<quint32>(rng_()); }

    struct Cost {
        int count = 0;
        qint64 act = 0, check = 0, max = 0;  // ns
    };
    void account(const QString& what, qint64 act, qint64 check) {
        QString k = what;
        const int cut = k.indexOf(QRegularExpression(QStringLiteral("['0-9]")));
        if (cut > 0) k.truncate(cut);
        Cost& c = costs_[k.trimmed()];
        ++c.count;
        c.act += act;
        c.check += check;
        c.max = std::max(c.max, act + check);
    }

    void settle() {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCoreApplication::processEvents();
    }

    template <typename T>
    QList<T*> visible() const {
        QList<T*> out;
        for (T* x : w_.findChildren<T*>())
            if (x->isVisible() && x->window() == &w_) out << x;
        return out;
    }

    static QString name(const QObject* o) {
        QString n = o->objectName();
        if (n.isEmpty()) {
            if (auto* b = qobject_cast<const QAbstractButton*>(o)) n = b->text();
            if (n.isEmpty()) n = QString::fromLatin1(o->metaObject()->className());
        }
        return n;
    }

    // A value a user might type: mostly small and valid, sometimes at the edges or invalid.
    QString typedNumber(quint32 r, int lo, int hi) const {
        switch (r % 8) {
            case 0:
                return QStringLiteral("abc");
            case 1:
                return QStringLiteral("-3");
            case 2:
                return QString();
            case 3:
                return QString::number(lo);
            case 4:
                return QString::number(std::min(hi, lo + 1));
            default:
                return QString::number(
                    lo + int((r / 8) % quint32(std::max(1, std::min(hi, 160) - lo + 1))));
        }
    }

    QString editField(quint32 a, quint32 b) {
        QList<QWidget*> fields;
        for (QWidget* x : visible<QWidget>())
            if (qobject_cast<QAbstractSpinBox*>(x) || qobject_cast<QComboBox*>(x) ||
                qobject_cast<QCheckBox*>(x) ||
                (qobject_cast<QLineEdit*>(x) && !qobject_cast<QAbstractSpinBox*>(x->parent()) &&
                 !qobject_cast<QComboBox*>(x->parent())))
                fields << x;
        if (fields.isEmpty()) return QStringLiteral("edit: no field");
        QWidget* f = fields[int(a % quint32(fields.size()))];
        const QString n = name(f);
        if (!f->isEnabled()) return QStringLiteral("edit %1: disabled").arg(n);
        if (auto* box = qobject_cast<QSpinBox*>(f)) {
            if (b % 3 == 0) {  // typed, committed with Enter
                const QString t = typedNumber(b / 3, box->minimum(), box->maximum());
                box->setFocus();
                box->selectAll();
                QTest::keyClicks(box, t);
                QTest::keyClick(box, Qt::Key_Return);
                return QStringLiteral("type '%1' into %2").arg(t, n);
            }
            const int lo = box->minimum(), hi = std::min(box->maximum(), lo + 160);
            const int v = b % 5 == 1 ? box->value() + 1
                                     : lo + int((b / 5) % quint32(std::max(1, hi - lo + 1)));
            box->setValue(v);
            return QStringLiteral("set %1 to %2").arg(n).arg(v);
        }
        if (auto* box = qobject_cast<QDoubleSpinBox*>(f)) {
            const double v =
                box->minimum() + (box->maximum() - box->minimum()) * ((b % 101) / 100.0);
            box->setValue(v);
            return QStringLiteral("set %1 to %2").arg(n).arg(v);
        }
        if (auto* combo = qobject_cast<QComboBox*>(f)) {
            if (combo->count() == 0) return QStringLiteral("choose in empty %1").arg(n);
            const int i = int(b % quint32(combo->count()));
            combo->setCurrentIndex(i);
            return QStringLiteral("choose '%1' in %2").arg(combo->itemText(i), n);
        }
        if (auto* check = qobject_cast<QCheckBox*>(f)) {
            check->click();
            return QStringLiteral("click %1").arg(n);
        }
        if (auto* edit = qobject_cast<QLineEdit*>(f)) {
            static const char* texts[] = {"0.001", "1e-4", "0.5", "abc", "", "-1", "1e400", "3"};
            const QString t = QLatin1String(texts[b % 8]);
            edit->setFocus();
            edit->selectAll();
            QTest::keyClicks(edit, t);
            QTest::keyClick(edit, Qt::Key_Return);
            return QStringLiteral("type '%1' into %2").arg(t, n);
        }
        return QStringLiteral("edit %1: unknown kind").arg(n);
    }

    // Every action of every menu and tool bar that opens no dialog (those end with "…").
    QString triggerAction(quint32 a) {
        QList<QAction*> all;
        for (QMenu* m : w_.findChildren<QMenu*>())
            for (QAction* x : m->actions()) all << x;
        for (QToolBar* t : w_.findChildren<QToolBar*>())
            for (QAction* x : t->actions()) all << x;
        QList<QAction*> usable;
        for (QAction* x : all) {
            const QString t = x->text();
            if (x->isSeparator() || x->menu() || t.contains(QChar(0x2026)) ||
                t.contains(QLatin1String("...")) || t.contains(QLatin1String("Quit")) ||
                // File > Save would write over the repository's experiment and fixtures the
                // monkey opened; it saves to its own folder instead (the "save" action).
                QString(t).remove(QLatin1Char('&')) == QLatin1String("Save") || t.isEmpty())
                continue;
            if (!usable.contains(x)) usable << x;
        }
        if (usable.isEmpty()) return QStringLiteral("action: none");
        QAction* x = usable[int(a % quint32(usable.size()))];
        const QString t = x->text().remove(QLatin1Char('&'));
        if (!x->isEnabled()) return QStringLiteral("action '%1': disabled").arg(t);
        x->trigger();
        return QStringLiteral("action '%1'").arg(t);
    }

    QString layerOp(quint32 a, quint32 b) {
        LayerStackEditor* ed = w_.layerEditor();
        const int n = w_.stackModel()->count();
        switch (a % 7) {
            case 0: {
                const auto types = ed->palette()->actions();
                QAction* x = types[int(b % quint32(types.size()))];
                x->trigger();
                return QStringLiteral("add layer %1").arg(x->objectName());
            }
            case 1:
                ed->removeCurrent();
                return QStringLiteral("remove layer");
            case 2:
                ed->moveCurrentUp();
                return QStringLiteral("move layer up");
            case 3:
                ed->moveCurrentDown();
                return QStringLiteral("move layer down");
            case 4:
                ed->duplicateCurrent();
                return QStringLiteral("duplicate layer");
            default: {
                const int i = n ? int(b % quint32(n)) : -1;
                ed->setCurrentLayer(i);
                return QStringLiteral("select layer %1").arg(i + 1);
            }
        }
    }

    QString comparisonOp(quint32 a, quint32 b) {
        ComparisonView* v = w_.comparisonView();
        ComparisonController* c = w_.comparison();
        switch (a % 8) {
            case 0:
            case 1: {
                if (presets_.isEmpty()) return QStringLiteral("compare: no presets");
                const QString p = presets_[int(b % quint32(presets_.size()))];
                QString error;
                v->addFromFileOrPreset(p, {}, &error);
                return QStringLiteral("compare: add preset %1").arg(QFileInfo(p).baseName());
            }
            case 2: {
                const int n = c->runCount();
                if (n) v->runsTable()->selectRow(int(b % quint32(n)));
                return QStringLiteral("compare: select run %1").arg(n ? int(b % quint32(n)) : -1);
            }
            case 3: {
                const int n = c->runCount();
                if (n) c->stop(int(b % quint32(n)));
                return QStringLiteral("compare: stop run %1").arg(n ? int(b % quint32(n)) : -1);
            }
            case 4: {
                const QString bad = files_[int(b % quint32(files_.size()))];
                QString error;
                c->open(bad, &error);
                return QStringLiteral("compare: open set %1").arg(QFileInfo(bad).fileName());
            }
            case 5: {
                const QString path = QFileInfo(savePath_).absolutePath() + "/set.json";
                QString error;
                c->save(path, &error);
                c->open(path, &error);
                return QStringLiteral("compare: save and reopen the set");
            }
            default: {
                v->trainAll(1 + int(b % 2));
                return QStringLiteral("compare: train all");
            }
        }
    }

    QString act(quint32 kind, quint32 a, quint32 b, quint32 c) {
        if (kind < 330) return editField(a, b);
        if (kind < 480) return layerOp(a, b);
        if (kind < 560) {
            w_.undoAction()->trigger();
            return QStringLiteral("undo");
        }
        if (kind < 610) {
            w_.redoAction()->trigger();
            return QStringLiteral("redo");
        }
        if (kind < 720) return triggerAction(a);
        if (kind < 770) {
            const QString f = files_[int(a % quint32(files_.size()))];
            w_.openFile(f);
            return QStringLiteral("open %1").arg(QFileInfo(f).fileName());
        }
        if (kind < 790) {
            w_.startTraining(1 + int(a % 2));
            return QStringLiteral("train");
        }
        if (kind < 805) {
            w_.togglePause();
            return QStringLiteral("pause/resume");
        }
        if (kind < 830) {
            w_.stopTraining();
            return QStringLiteral("stop");
        }
        if (kind < 860) {
            auto* tabs = w_.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
            const int i = int(a % quint32(tabs->count()));
            tabs->setCurrentIndex(i);
            return QStringLiteral("tab %1").arg(tabs->tabText(i));
        }
        if (kind < 880) {
            static const QSize sizes[] = {
                {1280, 720}, {1600, 1000}, {1024, 700}, {900, 600}, {1920, 1080}};
            const QSize s = sizes[a % 5];
            w_.resize(s);
            return QStringLiteral("resize to %1x%2").arg(s.width()).arg(s.height());
        }
        if (kind < 890) {
            QString error;
            w_.document()->save(savePath_, &error);
            return QStringLiteral("save");
        }
        if (kind < 900) {
            const auto docks = w_.findChildren<QDockWidget*>();
            QDockWidget* d = docks[int(a % quint32(docks.size()))];
            d->toggleViewAction()->trigger();
            return QStringLiteral("toggle dock %1").arg(d->objectName());
        }
        if (kind < 990) return comparisonOp(a, b);
        Q_UNUSED(c);
        QTest::qWait(int(a % 200));  // let a run make progress
        return QStringLiteral("wait");
    }

    bool check(QString* why) {
        if (!g_badMessages.isEmpty()) {
            *why = QStringLiteral("Qt warning: ") + g_badMessages.join(QStringLiteral(" | "));
            return false;
        }
        const bool idle = w_.controller()->state() == TrainingController::State::Idle;
        const bool valid = w_.stackModel()->analysis().valid;
        const QString dataProblem = w_.dataPanel()->problem();
        if (w_.trainAction()->isEnabled() != (idle && valid && dataProblem.isEmpty())) {
            *why = QStringLiteral(
                       "Train is %1 with the stack %2, the data %3 and the controller %4 (%5)")
                       .arg(w_.trainAction()->isEnabled() ? "enabled" : "disabled",
                            valid ? "valid" : "invalid",
                            dataProblem.isEmpty() ? QStringLiteral("usable") : dataProblem,
                            idle ? "idle" : "busy", w_.stackModel()->problem());
            return false;
        }
        if (w_.resultsAreStale() && w_.staleNote()->isHidden()) {
            *why = QStringLiteral("results of another stack or data are on show, unmarked");
            return false;
        }
        QUndoStack* undo = w_.document()->undoStack();
        if (undo->canUndo()) {
            const std::string before = w_.document()->experiment().toJson().dump();
            const int index = undo->index();
            undo->undo();
            undo->redo();
            // Read before any event runs: a price file still being read may land as a new
            // edit at the next event loop pass.
            const std::string after = w_.document()->experiment().toJson().dump();
            const int indexAfter = undo->index();
            settle();
            if (after != before || indexAfter != index) {
                *why = QStringLiteral("undo then redo of '%1' changed the experiment:\n%2\n%3")
                           .arg(undo->text(index - 1), QString::fromStdString(before),
                                QString::fromStdString(after));
                return false;
            }
        }
        return true;
    }

    MainWindow& w_;
    std::mt19937 rng_;
    quint32 seed_;
    std::ofstream log_;
    QStringList actions_;
    QStringList files_;
    QStringList presets_;
    QString savePath_;
    std::map<QString, Cost> costs_;
    const bool profile_ = qEnvironmentVariableIntValue("NNWB_MONKEY_PROFILE") != 0;
};

// Bars of each bundled price file the monkey trains on: enough for every preset's window and
// a validation part, few enough that an epoch of the largest preset takes milliseconds (on
// the 12,323 bars of the bundled file an epoch took seconds, more under ASan, and the runs the
// monkey starts kept both cores busy). NNWB_MONKEY_BARS changes it.
constexpr int kSliceBars = 200;
// The most epochs a bundled experiment or preset asks for (they ask for 10-20): a run that
// "Train All" starts with each run's own epochs ends within a second or two.
constexpr int kMaxEpochs = 3;

// A copy of the bundled resources (experiments, presets) for NNWB_RESOURCE_DIR, whose price
// files are their first bars only and whose experiments train at most kMaxEpochs: File > New,
// the preset menus and the Comparison tab's Add menu all read from it, so every run the
// monkey starts trains on the slice. Same layers, features and settings otherwise.
QString sliceResources(const QString& into) {
    const int bars = qEnvironmentVariableIntValue("NNWB_MONKEY_BARS") > 0
                         ? qEnvironmentVariableIntValue("NNWB_MONKEY_BARS")
                         : kSliceBars;
    const QDir from(QStringLiteral(NNWB_RESOURCES_DIR));
    const QString root = into + QStringLiteral("/resources");
    for (const QString& sub :
         {QStringLiteral("experiments"), QStringLiteral("presets"), QStringLiteral("data")}) {
        QDir().mkpath(root + QLatin1Char('/') + sub);
        for (const QFileInfo& f : QDir(from.filePath(sub)).entryInfoList(QDir::Files)) {
            const QString to = root + QLatin1Char('/') + sub + QLatin1Char('/') + f.fileName();
            QFile in(f.absoluteFilePath()), out(to);
            if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly)) continue;
            if (sub == QLatin1String("data")) {
                for (int line = 0; line <= bars && !in.atEnd(); ++line) out.write(in.readLine());
                continue;
            }
            nlohmann::json j = nlohmann::json::parse(in.readAll().toStdString());
            if (j.contains("training") && j["training"].contains("epochs"))
                j["training"]["epochs"] = std::min(j["training"]["epochs"].get<int>(), kMaxEpochs);
            out.write(QByteArray::fromStdString(j.dump(2)));
        }
    }
    return root;
}

QList<quint32> seedsFromEnv() {
    QList<quint32> seeds;
    for (const QString& s : qEnvironmentVariable("NNWB_MONKEY_SEEDS", QStringLiteral("1"))
                                .split(QLatin1Char(','), Qt::SkipEmptyParts))
        seeds << s.trimmed().toUInt();
    return seeds;
}

}  // namespace

class TestMonkey : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        resources_ = sliceResources(QString::fromStdString(test::tempDir()));
        qputenv("NNWB_RESOURCE_DIR", resources_.toLocal8Bit());
        QCoreApplication::setOrganizationName(QStringLiteral("nnwb-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_monkey"));
        g_previousHandler = qInstallMessageHandler(monkeyMessageHandler);
    }
    void cleanupTestCase() { qInstallMessageHandler(g_previousHandler); }

    void randomActions_data() {
        QTest::addColumn<quint32>("seed");
        for (quint32 s : seedsFromEnv()) QTest::newRow(qPrintable(QString::number(s))) << s;
    }
    void randomActions() {
        QFETCH(quint32, seed);
        const int count = qEnvironmentVariableIntValue("NNWB_MONKEY_ACTIONS") > 0
                              ? qEnvironmentVariableIntValue("NNWB_MONKEY_ACTIONS")
                              : 300;
        const QString logPath =
            QDir::current().absoluteFilePath(QStringLiteral("monkey-seed-%1.log").arg(seed));
        std::printf("monkey: seed %u, %d actions, action log %s\n", seed, count,
                    qPrintable(logPath));
        std::fflush(stdout);
        g_badMessages.clear();
        QElapsedTimer clock;
        clock.start();
        int done = 0;
        {
            MainWindow w;
            w.setConfirmDiscard(false);
            // A run store of its own per seed: what the Runs tab lists (and how long it takes
            // to list it) depends on this seed's actions only, not on the seeds before it.
            const QString store = QString::fromStdString(test::tempDir());
            w.setRunsDatabase(store + QStringLiteral("/runs.sqlite"), true);
            QVERIFY(w.openExperiment(resources_ + "/experiments/default.json"));
            w.resize(1600, 1000);
            w.show();
            w.applyDefaultLayout();
            // A modal window would stop the sequence: close any that opens.
            QTimer closer;
            QObject::connect(&closer, &QTimer::timeout, [] {
                if (QWidget* m = QApplication::activeModalWidget()) m->close();
            });
            closer.start(50);
            Monkey monkey(w, seed, logPath);
            QString why;
            for (int i = 0; i < count; ++i, ++done) {
                if (!monkey.step(i, &why)) {
                    std::fprintf(stderr, "monkey: seed %u failed after action %d: %s\n", seed, i,
                                 qPrintable(why));
                    std::fprintf(stderr, "monkey: actions of seed %u:\n%s\n", seed,
                                 qPrintable(monkey.actions().join(QLatin1Char('\n'))));
                    std::fprintf(stderr,
                                 "monkey: replay with NNWB_MONKEY_SEEDS=%u "
                                 "NNWB_MONKEY_ACTIONS=%d\n",
                                 seed, i + 1);
                    monkey.finish();
                    QFAIL(qPrintable(
                        QStringLiteral("seed %1, action %2: %3").arg(seed).arg(i).arg(why)));
                }
            }
            monkey.finish();
            if (qEnvironmentVariableIntValue("NNWB_MONKEY_PROFILE")) monkey.printProfile();
        }
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QVERIFY2(g_badMessages.isEmpty(), qPrintable(g_badMessages.join(QLatin1Char('\n'))));
        const double s = clock.elapsed() / 1000.0;
        std::printf("monkey: seed %u: %d actions in %.1f s, %.1f actions/s\n", seed, done, s,
                    done / std::max(s, 1e-3));
        std::fflush(stdout);
    }

private:
    QString resources_;  // the bundled resources with their price files sliced
};

QTEST_MAIN(TestMonkey)
#include "tst_monkey.moc"
