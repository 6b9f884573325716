#include "ui/HelpMenu.h"

#include <QAction>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "app/core/Presets.h"
#include "compute/Backend.h"
#include "compute/BackendRegistry.h"
#include "nnwb/Version.h"

namespace nnwb {

QString readmePath() {
    for (const QString& dir : resourceDirs()) {
        const QString p = QDir(dir).absoluteFilePath(QStringLiteral("../README.md"));
        if (QFileInfo::exists(p)) return QDir::cleanPath(p);
    }
    return {};
}

namespace {

// The licences and the bundled data's attribution (the package's copyright file says the same:
// resources/packaging/copyright), with the NOTICE file found beside the resources.
QString licenceText() {
    QString notice;
    for (const QString& dir : resourceDirs())
        if (QFileInfo::exists(QDir(dir).absoluteFilePath(QStringLiteral("NOTICE")))) {
            notice = QDir(dir).absoluteFilePath(QStringLiteral("NOTICE"));
            break;
        }
    return QObject::tr(
               "<p><b>Licences.</b> The nnwb sources carry no licence statement of their own yet. "
               "The window uses Qt 6 (LGPL-3) and QCustomPlot (GPL-3); the programs use "
               "CLI11 (BSD-3-Clause), nlohmann/json (MIT), SQLite (public domain), SQLiteC++ "
               "(MIT), ONNX (Apache-2.0), protobuf (BSD-3-Clause), Nettle (LGPL-3) and the "
               "OpenCL ICD loader.</p>"
               "<p><b>Bundled data.</b> EUR/USD H1 bars 2017–2018 converted from the hourly data "
               "of the QuantConnect Lean repository (Apache License 2.0), original price data "
               "from the Oanda feed%1.</p>")
        .arg(notice.isEmpty() ? QString()
                              : QObject::tr("; see <code>%1</code>").arg(notice.toHtmlEscaped()));
}

}  // namespace

QString aboutText() {
    QString devices;
    for (const DeviceInfo& d : listDevices())
        devices += QStringLiteral("<li><code>%1</code> — %2</li>")
                       .arg(QString::fromStdString(d.id).toHtmlEscaped(),
                            QString::fromStdString(d.name).toHtmlEscaped());
#if defined(__clang__)
    const QString compiler = QStringLiteral("clang %1").arg(QLatin1String(__clang_version__));
#elif defined(__GNUC__)
    const QString compiler = QStringLiteral("g++ %1").arg(QLatin1String(__VERSION__));
#else
    const QString compiler = QStringLiteral("unknown compiler");
#endif
    return QObject::tr(
               "<h3>nnwb %1 — Neural Network Workbench</h3>"
               "<p>Attention-family networks trained on market price bars, on the CPU "
               "or any OpenCL device.</p>"
               "<p>Qt %2 (built with %3), %4.</p>"
               "<p>Compute devices:</p><ul>%5</ul>%6")
        .arg(QStringLiteral(NNWB_VERSION), QLatin1String(qVersion()), QLatin1String(QT_VERSION_STR),
             compiler, devices, licenceText());
}

QString firstStepsText() {
    return QObject::tr(
        "<h3>First steps</h3><ol>"
        "<li><b>Data</b> (right): the bundled EURUSD H1 bars are loaded. File ▸ Open Data… or a "
        "drop on the window takes your own MT5 / MT4 / CSV export. Pick the features and the "
        "window (bars per sample).</li>"
        "<li><b>Model</b> (left): Model ▸ Presets loads a known stack; Add layer, Remove, Up, "
        "Down and the parameter form edit it. The status line under the stack says whether it "
        "fits the data and, if not, which layer does not.</li>"
        "<li><b>Training</b>: optimizer, learning rate, batch size, epochs and the device.</li>"
        "<li><b>Train</b> (F5): the charts show loss, missed patterns and accuracy per epoch, "
        "training solid and validation dashed; the heatmaps show the attention Score matrices "
        "of a validation sample; F6 pauses, Shift+F5 stops.</li>"
        "<li><b>Compare</b> (Ctrl+K): add experiments or presets and Train All to see their "
        "curves side by side.</li>"
        "<li>Every edit can be undone (Ctrl+Z); File ▸ Save keeps the experiment as JSON.</li>"
        "</ol><p>Hover over any field to see what it does and its unit.</p>");
}

namespace {

void showFirstSteps(QMainWindow* window) {
    auto* d = new QDialog(window);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->setWindowTitle(QObject::tr("First steps"));
    auto* layout = new QVBoxLayout(d);
    auto* text = new QTextBrowser(d);
    text->setHtml(firstStepsText());
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, d);
    QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::close);
    layout->addWidget(buttons);
    d->resize(560, 420);
    d->show();
}

// README.md rendered in a dialog (its pictures included), or where it was looked for.
void showReadme(QMainWindow* window) {
    const QString path = readmePath();
    if (path.isEmpty()) {
        auto* box =
            new QMessageBox(QMessageBox::Information, QObject::tr("README"),
                            QObject::tr("README.md was not found next to the resources folder."),
                            QMessageBox::Ok, window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return;
    }
    // Shown here, rendered (its pictures included): a desktop handler for .md files is
    // often missing, and then the menu could only say where the file was.
    auto* d = new QDialog(window);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->setWindowTitle(QObject::tr("README — %1").arg(path));
    auto* layout = new QVBoxLayout(d);
    auto* text = new QTextBrowser(d);
    text->setObjectName(QStringLiteral("readmeText"));
    text->setOpenExternalLinks(true);
    text->setSource(QUrl::fromLocalFile(path), QTextDocument::MarkdownResource);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, d);
    QPushButton* external =
        buttons->addButton(QObject::tr("Open in Another Viewer"), QDialogButtonBox::ActionRole);
    external->setToolTip(path);
    QObject::connect(external, &QPushButton::clicked, d,
                     [path] { QDesktopServices::openUrl(QUrl::fromLocalFile(path)); });
    QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::close);
    layout->addWidget(buttons);
    const QSize screen = window->screen() ? window->screen()->availableSize() : QSize(1280, 720);
    d->resize(QSize(900, 700).boundedTo(screen - QSize(40, 60)));
    d->show();
}

}  // namespace

QMenu* addHelpMenu(QMainWindow* window) {
    QMenu* help = window->menuBar()->addMenu(QObject::tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction* steps = help->addAction(QObject::tr("&First Steps…"));
    steps->setObjectName(QStringLiteral("firstStepsAction"));
    QObject::connect(steps, &QAction::triggered, window, [window] { showFirstSteps(window); });
    QAction* readme = help->addAction(QObject::tr("&README…"));
    readme->setObjectName(QStringLiteral("readmeAction"));
    QObject::connect(readme, &QAction::triggered, window, [window] { showReadme(window); });
    help->addSeparator();
    QAction* about = help->addAction(QObject::tr("&About nnwb…"));
    about->setObjectName(QStringLiteral("aboutAction"));
    QObject::connect(about, &QAction::triggered, window, [window] {
        auto* box = new QMessageBox(QMessageBox::NoIcon, QObject::tr("About nnwb"), aboutText(),
                                    QMessageBox::Ok, window);
        box->setTextFormat(Qt::RichText);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    return help;
}

}  // namespace nnwb
