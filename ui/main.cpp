// nnwb: the workbench GUI program (the window it starts is the rest of ui/). With no arguments
// it opens the last experiment (or the bundled default), with one FILE that experiment (the
// desktop entry's `nnwb %f`); `--experiment FILE --train-epochs N
// --screenshot OUT.png [--device ID] [--size WxH]` trains N epochs, renders the window to
// OUT.png and exits (works offscreen); `--compare A B ... [--device ID ...]` opens the
// experiment files or presets A, B, ... as a comparison set on the Comparison tab (with
// --train-epochs and --screenshot: the same demo); `--runs-db PATH` / `--no-record` choose the
// run store; `--show-runs ID,ID,...` opens the Runs tab with those runs selected (with
// --screenshot: a picture of it).
#include <algorithm>
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QFont>
#include <QScreen>
#include <QSettings>
#include <QTimer>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/MetaTypes.h"
#include "app/core/Presets.h"
#include "model/data/DateTime.h"
#include "nnwb/Version.h"
#include "ui/AppStyle.h"
#include "ui/ChartBench.h"
#include "ui/ComparisonView.h"
#include "ui/MainWindow.h"
#include "ui/PriceChart.h"
#include "ui/PriceChartPane.h"
#include "ui/RunsView.h"
#include "ui/ScreenshotRun.h"

namespace {

QSize parseSize(const QString& text) {
    const QStringList parts = text.toLower().split(QLatin1Char('x'));
    if (parts.size() != 2) return {};
    bool ok1 = false, ok2 = false;
    const QSize s(parts[0].toInt(&ok1), parts[1].toInt(&ok2));
    return ok1 && ok2 && s.width() >= 640 && s.height() >= 480 ? s : QSize();
}

QCommandLineOption option(const char* name, const char* help, const char* value = nullptr) {
    return value ? QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help),
                                      QString::fromLatin1(value))
                 : QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help));
}

// The program's options, declared once.
struct Options {
    QCommandLineOption experiment = option("experiment", "Open experiment FILE.", "FILE");
    QCommandLineOption epochs = option("train-epochs", "Train N epochs at start.", "N");
    QCommandLineOption shot =
        option("screenshot", "Render the window to OUT.png and exit.", "OUT.png");
    QCommandLineOption device = option("device",
                                       "Compute device id (cpu, opencl:P:D); with --compare once "
                                       "for all runs or once per run.",
                                       "ID");
    QCommandLineOption compare = option("compare",
                                        "Open the experiment files or presets given as arguments "
                                        "as a comparison set (Comparison tab).");
    QCommandLineOption size = option(
        "size", "Window size, e.g. 1920x1080 (at most the screen less a window frame).", "WxH");
    QCommandLineOption chart = option("chart-range",
                                      "Show the Price Chart tab; after training, the bars from "
                                      "FROM to TO (dates, e.g. 2018-10-01,2018-10-20; 'all' for "
                                      "the whole range).",
                                      "FROM,TO");
    QCommandLineOption bench =
        option("chart-bench", "Measure the price chart's redraw time on FILE and exit.", "FILE");
    QCommandLineOption bars =
        option("bars", "With --chart-bench: repeat the file's bars end to end up to N bars.", "N");
    QCommandLineOption model = option(
        "model", "With --chart-bench: draw the signals of this model bundle.", "M.safetensors");
    QCommandLineOption runsDb = option("runs-db",
                                       "Run store database (default: $NNWB_RUNS_DB, else "
                                       "~/.local/share/nnwb/runs.sqlite).",
                                       "PATH");
    QCommandLineOption noRecord = option("no-record", "Do not record runs in the run store.");
    QCommandLineOption showRuns = option(
        "show-runs", "Open the Runs tab with these runs (comma-separated ids) selected.", "IDS");

    void addTo(QCommandLineParser& cli) const {
        cli.setApplicationDescription(QStringLiteral("Neural Network Workbench"));
        cli.addHelpOption();
        cli.addVersionOption();
        cli.addOptions({experiment, epochs, shot, device, size, compare, chart, bench, bars, model,
                        runsDb, noRecord, showRuns});
        cli.addPositionalArgument(QStringLiteral("experiments"),
                                  QStringLiteral("An experiment file to open; with --compare: "
                                                 "experiment files or preset names."),
                                  QStringLiteral("[FILE | A B ...]"));
    }
};

// The experiment the window opens with: the one given, else the last one, else the default.
// False when a scripted run cannot open the one given.
bool openStartExperiment(nnwb::MainWindow& window, const QCommandLineParser& cli, const Options& o,
                         bool scripted) {
    QString given = cli.value(o.experiment);
    const QStringList files = cli.positionalArguments();
    if (given.isEmpty() && !cli.isSet(o.compare) && files.size() == 1)
        given = files.front();  // `nnwb FILE`: the desktop entry's Exec=nnwb %f
    if (!given.isEmpty()) {
        if (window.openExperiment(given)) return true;
        std::fprintf(stderr, "nnwb: %s\n",
                     qPrintable(window.lastError().isEmpty() ? given : window.lastError()));
        return !scripted;
    }
    const QString last = QSettings().value(QStringLiteral("lastExperiment")).toString();
    if (scripted || last.isEmpty() || !QFileInfo::exists(last) || !window.openExperiment(last)) {
        QString source;
        window.document()->reset(nnwb::defaultExperiment(&source));
    }
    return true;
}

// --compare A B ...: the comparison set; else --device for the experiment. False on bad input.
bool applyCompareAndDevice(nnwb::MainWindow& window, const QCommandLineParser& cli,
                           const Options& o) {
    if (!cli.isSet(o.compare)) {
        if (cli.isSet(o.device)) {
            nnwb::TrainingConfig t = window.document()->experiment().training;
            t.device = cli.value(o.device).toStdString();
            window.document()->setTraining(t);
        }
        return true;
    }
    const QStringList runs = cli.positionalArguments();
    const QStringList devices = cli.values(o.device);
    if (runs.size() < 2 || (devices.size() > 1 && devices.size() != runs.size())) {
        std::fprintf(stderr,
                     "nnwb: --compare needs two or more experiments and --device "
                     "once for all or once per experiment\n");
        return false;
    }
    for (int i = 0; i < runs.size(); ++i) {
        const QString device = devices.isEmpty()     ? QString()
                               : devices.size() == 1 ? devices[0]
                                                     : devices[i];
        QString error;
        if (!window.comparisonView()->addFromFileOrPreset(runs[i], device, &error)) {
            std::fprintf(stderr, "nnwb: %s\n", qPrintable(error));
            return false;
        }
    }
    return true;
}

void sizeWindow(nnwb::MainWindow& window, const QSize& size, bool scripted) {
    if (size.isValid()) {
        // Within the screen with the window manager's frame; a screenshot (offscreen, no frame)
        // keeps the size asked for.
        const QScreen* screen = window.screen();
        window.resize(scripted || !screen ? size
                                          : nnwb::MainWindow::fitToScreen(
                                                size, screen->availableGeometry().size()));
        window.applyDefaultLayout();
    } else if (scripted || !window.restoreWindowState()) {
        // On a small screen (1280×720) the window opens at the screen's size, compact layout.
        const QScreen* screen = window.screen();
        window.resize(scripted ? QSize(1920, 1080)
                               : nnwb::MainWindow::defaultSize(
                                     screen ? screen->availableGeometry().size() : QSize()));
        window.applyDefaultLayout();
    }
}

// --chart-range FROM,TO: the Price Chart tab, showing those bars once the run has finished.
void showChartRange(nnwb::MainWindow& window, const QString& value) {
    window.showPriceChart();
    const QStringList range = value.split(QLatin1Char(','));
    QObject::connect(
        window.controller(), &nnwb::TrainingController::runFinished, &window, [&window, range] {
            nnwb::PriceChart* chart = window.priceChartPane()->chart();
            const auto bars = chart->bars();
            if (!bars || range.size() != 2) return chart->showAll();
            int64_t from = 0, to = 0;
            if (!nnwb::parseDateTime(range[0].toStdString(), from) ||
                !nnwb::parseDateTime(range[1].toStdString(), to))
                return chart->showAll();
            const auto& t = bars->time;
            const double a = double(std::lower_bound(t.begin(), t.end(), from) - t.begin());
            const double b = double(std::lower_bound(t.begin(), t.end(), to) - t.begin());
            chart->showRange(a - 0.5, b + 0.5);
        });
}

void showRunIds(nnwb::MainWindow& window, const QString& value) {
    std::vector<int64_t> ids;
    for (const QString& id : value.split(QLatin1Char(','), Qt::SkipEmptyParts))
        ids.push_back(id.trimmed().toLongLong());
    window.showRuns();
    window.runsView()->selectIds(ids);
}

// What happens once the event loop runs: a screenshot run, a comparison or a training.
void startWork(QApplication& app, nnwb::MainWindow& window, int epochs, bool compare,
               const QString& screenshot) {
    if (!screenshot.isEmpty()) {
        auto* run = new nnwb::ScreenshotRun(&window, epochs, screenshot, &app);
        run->setComparison(compare);
        QObject::connect(run, &nnwb::ScreenshotRun::finished, &app,
                         [](int code) { QApplication::exit(code); });
        QTimer::singleShot(100, run, &nnwb::ScreenshotRun::start);
    } else if (compare) {
        window.showComparison();
        if (epochs > 0)
            QTimer::singleShot(100, &window,
                               [&window, epochs] { window.comparisonView()->trainAll(epochs); });
    } else if (epochs > 0) {
        QTimer::singleShot(100, &window, [&window, epochs] { window.startTraining(epochs); });
    }
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("nnwb"));
    QApplication::setApplicationName(QStringLiteral("nnwb"));
    QApplication::setApplicationVersion(QStringLiteral(NNWB_VERSION));
    nnwb::applyAppStyle();
    nnwb::registerMetaTypes();

    QCommandLineParser cli;
    const Options o;
    o.addTo(cli);
    cli.process(app);

    if (cli.isSet(o.bench))
        return nnwb::runChartBench(cli.value(o.bench), cli.value(o.bars).toInt(),
                                   cli.value(o.model), parseSize(cli.value(o.size)));
    const bool scripted = cli.isSet(o.shot);
    nnwb::MainWindow window;
    window.setConfirmDiscard(!scripted);
    window.setRunsDatabase(cli.value(o.runsDb), !cli.isSet(o.noRecord));
    if (!openStartExperiment(window, cli, o, scripted)) return 2;
    if (!applyCompareAndDevice(window, cli, o)) return 2;
    sizeWindow(window, parseSize(cli.value(o.size)), scripted);
    window.show();

    int epochs = 0;
    if (cli.isSet(o.epochs)) {
        bool ok = false;
        epochs = cli.value(o.epochs).toInt(&ok);
        if (!ok || epochs < 0) {
            std::fprintf(stderr, "nnwb: --train-epochs needs a non-negative number\n");
            return 2;
        }
    }
    if (cli.isSet(o.chart)) showChartRange(window, cli.value(o.chart));
    if (cli.isSet(o.showRuns)) showRunIds(window, cli.value(o.showRuns));
    startWork(app, window, epochs, cli.isSet(o.compare), scripted ? cli.value(o.shot) : QString());
    return app.exec();
}
