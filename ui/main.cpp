// nnwb: the workbench GUI program (the window it starts is the rest of ui/). With no arguments
// it opens the last experiment (or the bundled default); `--experiment FILE --train-epochs N
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
#include <QStyleFactory>
#include <QTimer>

#include "app/core/ComparisonController.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/MetaTypes.h"
#include "app/core/Presets.h"
#include "model/data/DateTime.h"
#include "nnwb/Version.h"
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

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("nnwb"));
    QApplication::setApplicationName(QStringLiteral("nnwb"));
    QApplication::setApplicationVersion(QStringLiteral(NNWB_VERSION));
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    nnwb::registerMetaTypes();

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("Neural Network Workbench"));
    cli.addHelpOption();
    cli.addVersionOption();
    const QCommandLineOption experimentOpt(QStringLiteral("experiment"),
                                           QStringLiteral("Open experiment FILE."),
                                           QStringLiteral("FILE"));
    const QCommandLineOption epochsOpt(QStringLiteral("train-epochs"),
                                       QStringLiteral("Train N epochs at start."),
                                       QStringLiteral("N"));
    const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
                                     QStringLiteral("Render the window to OUT.png and exit."),
                                     QStringLiteral("OUT.png"));
    const QCommandLineOption deviceOpt(
        QStringLiteral("device"),
        QStringLiteral("Compute device id (cpu, opencl:P:D); with --compare once for all runs "
                       "or once per run."),
        QStringLiteral("ID"));
    const QCommandLineOption compareOpt(
        QStringLiteral("compare"),
        QStringLiteral("Open the experiment files or presets given as arguments as a comparison "
                       "set (Comparison tab)."));
    const QCommandLineOption sizeOpt(QStringLiteral("size"),
                                     QStringLiteral("Window size, e.g. 1920x1080."),
                                     QStringLiteral("WxH"));
    const QCommandLineOption chartOpt(
        QStringLiteral("chart-range"),
        QStringLiteral("Show the Price Chart tab; after training, the bars from FROM to TO "
                       "(dates, e.g. 2018-10-01,2018-10-20; 'all' for the whole range)."),
        QStringLiteral("FROM,TO"));
    const QCommandLineOption benchOpt(
        QStringLiteral("chart-bench"),
        QStringLiteral("Measure the price chart's redraw time on FILE and exit."),
        QStringLiteral("FILE"));
    const QCommandLineOption barsOpt(
        QStringLiteral("bars"),
        QStringLiteral("With --chart-bench: repeat the file's bars end to end up to N bars."),
        QStringLiteral("N"));
    const QCommandLineOption modelOpt(
        QStringLiteral("model"),
        QStringLiteral("With --chart-bench: draw the signals of this model bundle."),
        QStringLiteral("M.safetensors"));
    const QCommandLineOption runsDbOpt(
        QStringLiteral("runs-db"),
        QStringLiteral("Run store database (default: $NNWB_RUNS_DB, else "
                       "~/.local/share/nnwb/runs.sqlite)."),
        QStringLiteral("PATH"));
    const QCommandLineOption noRecordOpt(QStringLiteral("no-record"),
                                         QStringLiteral("Do not record runs in the run store."));
    const QCommandLineOption showRunsOpt(
        QStringLiteral("show-runs"),
        QStringLiteral("Open the Runs tab with these runs (comma-separated ids) selected."),
        QStringLiteral("IDS"));
    cli.addOptions({experimentOpt, epochsOpt, shotOpt, deviceOpt, sizeOpt, compareOpt, chartOpt,
                    benchOpt, barsOpt, modelOpt, runsDbOpt, noRecordOpt, showRunsOpt});
    cli.addPositionalArgument(QStringLiteral("experiments"),
                              QStringLiteral("With --compare: experiment files or preset names."),
                              QStringLiteral("[A B ...]"));
    cli.process(app);

    if (cli.isSet(benchOpt))
        return nnwb::runChartBench(cli.value(benchOpt), cli.value(barsOpt).toInt(),
                                   cli.value(modelOpt), parseSize(cli.value(sizeOpt)));
    const bool scripted = cli.isSet(shotOpt);
    nnwb::MainWindow window;
    window.setConfirmDiscard(!scripted);
    window.setRunsDatabase(cli.value(runsDbOpt), !cli.isSet(noRecordOpt));

    if (cli.isSet(experimentOpt)) {
        if (!window.openExperiment(cli.value(experimentOpt))) {
            std::fprintf(stderr, "nnwb: %s\n",
                         qPrintable(window.lastError().isEmpty() ? cli.value(experimentOpt)
                                                                 : window.lastError()));
            if (scripted) return 2;
        }
    } else {
        const QString last = QSettings().value(QStringLiteral("lastExperiment")).toString();
        if (scripted || last.isEmpty() || !QFileInfo::exists(last) ||
            !window.openExperiment(last)) {
            QString source;
            const nnwb::Experiment e = nnwb::defaultExperiment(&source);
            window.document()->reset(e);
        }
    }
    const bool compare = cli.isSet(compareOpt);
    if (compare) {
        const QStringList runs = cli.positionalArguments();
        const QStringList devices = cli.values(deviceOpt);
        if (runs.size() < 2 || (devices.size() > 1 && devices.size() != runs.size())) {
            std::fprintf(stderr,
                         "nnwb: --compare needs two or more experiments and --device "
                         "once for all or once per experiment\n");
            return 2;
        }
        for (int i = 0; i < runs.size(); ++i) {
            const QString device = devices.isEmpty()     ? QString()
                                   : devices.size() == 1 ? devices[0]
                                                         : devices[i];
            QString error;
            if (!window.comparisonView()->addFromFileOrPreset(runs[i], device, &error)) {
                std::fprintf(stderr, "nnwb: %s\n", qPrintable(error));
                return 2;
            }
        }
    } else if (cli.isSet(deviceOpt)) {
        nnwb::TrainingConfig t = window.document()->experiment().training;
        t.device = cli.value(deviceOpt).toStdString();
        window.document()->setTraining(t);
    }

    const QSize size = parseSize(cli.value(sizeOpt));
    if (size.isValid()) {
        window.resize(size);
        window.applyDefaultLayout();
    } else if (scripted || !window.restoreWindowState()) {
        // On a small screen (1280×720) the window opens at the screen's size, compact layout.
        const QScreen* screen = window.screen();
        window.resize(scripted ? QSize(1920, 1080)
                               : nnwb::MainWindow::defaultSize(
                                     screen ? screen->availableGeometry().size() : QSize()));
        window.applyDefaultLayout();
    }
    window.show();

    int epochs = 0;
    if (cli.isSet(epochsOpt)) {
        bool ok = false;
        epochs = cli.value(epochsOpt).toInt(&ok);
        if (!ok || epochs < 0) {
            std::fprintf(stderr, "nnwb: --train-epochs needs a non-negative number\n");
            return 2;
        }
    }
    if (cli.isSet(chartOpt)) {
        window.showPriceChart();
        // After the run (before a screenshot is taken): show the asked range of bars.
        const QStringList range = cli.value(chartOpt).split(QLatin1Char(','));
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
    if (cli.isSet(showRunsOpt)) {
        std::vector<int64_t> ids;
        for (const QString& id : cli.value(showRunsOpt).split(QLatin1Char(','), Qt::SkipEmptyParts))
            ids.push_back(id.trimmed().toLongLong());
        window.showRuns();
        window.runsView()->selectIds(ids);
    }
    if (scripted) {
        auto* run = new nnwb::ScreenshotRun(&window, epochs, cli.value(shotOpt), &app);
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
    return app.exec();
}
