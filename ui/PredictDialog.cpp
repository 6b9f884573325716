#include "ui/PredictDialog.h"

#include <climits>

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>

#include "ui/Plot.h"

#include "app/core/PredictJob.h"
#include "app/core/QtText.h"
#include "model/AtomicFile.h"
#include "model/FigureText.h"
#include "model/PredictionReport.h"
#include "model/data/DataSummary.h"
#include "model/ensemble/EnsembleBundle.h"
#include "model/trading/Verdict.h"
#include "ui/EquityChart.h"
#include "ui/FileDialogs.h"
#include "ui/PriceChart.h"
#include "ui/TradingTable.h"

namespace nnwb {

namespace {
// The instrument a price file's name starts with ("XAUUSD_H1.csv", "EURUSD.csv": up to the
// first '_', '.', '-', ',' or space), in capitals; "" when the name has none.
QString instrumentOf(const QString& fileName) {
    const qsizetype end = fileName.indexOf(QRegularExpression(QStringLiteral("[_.,\\- ]")));
    return (end < 0 ? fileName : fileName.left(end)).toUpper();
}
}  // namespace

QString otherInstrumentWarning(const QString& trainedOn, const QString& fileName) {
    const QString model = instrumentOf(trainedOn), file = instrumentOf(fileName);
    if (model.isEmpty() || file.isEmpty() || model == file) return {};
    return QObject::tr(
               "The model was trained on %1 (%2), this file looks like %3: another "
               "instrument's prices and volatility differ from what the model learned, "
               "so its signals may mean little here.")
        .arg(model, trainedOn, file);
}

PredictDialog::PredictDialog(std::shared_ptr<const ModelBundle> bundle, const QString& device,
                             QWidget* parent, const TradingSettings& trading)
    : QDialog(parent), device_(device), tradingSettings_(trading) {
    setObjectName(QStringLiteral("predictDialog"));
    setWindowTitle(tr("Predict with the trained model"));
    auto* layout = new QVBoxLayout(this);
    title_ = new QLabel(this);
    title_->setWordWrap(true);
    layout->addWidget(title_);
    status_ = new QLabel(tr("Open a price file to apply the model to."), this);
    status_->setObjectName(QStringLiteral("predictStatus"));
    status_->setWordWrap(true);
    layout->addWidget(status_);
    // The price chart over the results; the user moves the split (at 1280×720 the chart keeps
    // about half the height, the equity curve and the figures the rest).
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("predictSplit"));
    split->setChildrenCollapsible(false);
    chart_ = new PriceChart(split);
    split->addWidget(chart_);
    split->addWidget(createResultPanes());
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    // The equity curve follows the price chart's visible bars.
    connect(chart_->plot()->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), equity_,
            [this](const QCPRange& r) { equity_->showBars(r.lower, r.upper); });
    saved_ = new QLabel(this);
    saved_->setObjectName(QStringLiteral("predictSaved"));
    saved_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    saved_->hide();
    layout->addWidget(saved_);
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("predictProgress"));
    progress_->setVisible(false);
    layout->addWidget(progress_);
    useModel(std::move(bundle), nullptr);
    addButtons(layout);
    // Large, but within the screen (a 1280×720 screen had the buttons below its edge).
    const QSize room = screen() ? screen()->availableGeometry().size() : QSize(1300, 800);
    resize(QSize(1300, 800).boundedTo(room - QSize(40, 60)));
}

QWidget* PredictDialog::createResultPanes() {
    auto* panes = new QWidget(this);
    auto* layout = new QVBoxLayout(panes);
    layout->setContentsMargins(0, 0, 0, 0);
    verdict_ = new QLabel(panes);
    verdict_->setObjectName(QStringLiteral("predictVerdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(verdict_);
    // The equity curve beside the figures table and the metrics (side by side, so that at
    // 1280×720 the curve keeps a readable height under the price chart).
    auto* row = new QHBoxLayout;
    equity_ = new EquityChart(panes);
    equity_->setObjectName(QStringLiteral("predictEquity"));
    equity_->setMinimumHeight(185);
    row->addWidget(equity_, 3);
    auto* figures = new QVBoxLayout;
    tradingTable_ = new TradingTable(panes);
    tradingTable_->setObjectName(QStringLiteral("predictTrading"));
    figures->addWidget(tradingTable_, 1);
    metrics_ = new QPlainTextEdit(panes);
    metrics_->setObjectName(QStringLiteral("predictMetrics"));
    metrics_->setReadOnly(true);
    metrics_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    figures->addWidget(metrics_, 1);
    row->addLayout(figures, 2);
    layout->addLayout(row, 1);
    return panes;
}

void PredictDialog::showTrading(const PredictOutcome& o) {
    trading_ = o.trading;
    equity_->setReport(trading_.get());
    tradingTable_->setReport(trading_.get());
    if (!trading_) {
        verdict_->setText(tr("Not traded: %1").arg(o.tradingError));
        return;
    }
    QString text = tr("Traded with the experiment's rules (docs/trading.md): %1")
                       .arg(q(tradingVerdict(verdictFigures(*trading_))));
    for (const std::string& w : trading_->warnings) text += QStringLiteral("\n") + q(w);
    verdict_->setText(text);
}

QString PredictDialog::verdictText() const {
    return verdict_->text();
}

void PredictDialog::addButtons(QVBoxLayout* layout) {
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    openButton_ = buttons->addButton(tr("Open Price File…"), QDialogButtonBox::ActionRole);
    openButton_->setObjectName(QStringLiteral("predictOpen"));
    modelButton_ = buttons->addButton(tr("Open Model File…"), QDialogButtonBox::ActionRole);
    modelButton_->setObjectName(QStringLiteral("predictOpenModel"));
    modelButton_->setToolTip(
        tr("Predict with a model bundle or an ensemble bundle (nnwb-cli train --save-model, "
           "train --ensemble) instead"));
    cancelButton_ = buttons->addButton(tr("Cancel Prediction"), QDialogButtonBox::ActionRole);
    cancelButton_->setObjectName(QStringLiteral("predictCancel"));
    exportButton_ = buttons->addButton(tr("Export CSV…"), QDialogButtonBox::ActionRole);
    exportButton_->setObjectName(QStringLiteral("predictExport"));
    connect(openButton_, &QPushButton::clicked, this, &PredictDialog::openFileDialog);
    connect(modelButton_, &QPushButton::clicked, this, &PredictDialog::openModelFileDialog);
    connect(cancelButton_, &QPushButton::clicked, this, &PredictDialog::cancelPrediction);
    connect(exportButton_, &QPushButton::clicked, this, &PredictDialog::exportCsvDialog);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    updateButtons();
}

// The job goes first: a prediction still running is cancelled and its outcome dropped.
PredictDialog::~PredictDialog() = default;

void PredictDialog::setEnsemble(std::shared_ptr<const EnsembleBundle> ensemble) {
    ensemble_ = ensemble;
    job_->setEnsemble(std::move(ensemble));
    showModelTitle();
}

void PredictDialog::useModel(std::shared_ptr<const ModelBundle> bundle,
                             std::shared_ptr<const EnsembleBundle> ensemble) {
    bundle_ = bundle;
    ensemble_ = ensemble;
    job_ = std::make_unique<PredictJob>(std::move(bundle), device_, tradingSettings_);
    if (ensemble_) job_->setEnsemble(ensemble_);
    connect(job_.get(), &PredictJob::progress, this, &PredictDialog::showProgress);
    connect(job_.get(), &PredictJob::finished, this, &PredictDialog::showOutcome);
    showModelTitle();
}

void PredictDialog::showModelTitle() {
    if (ensemble_) {
        setWindowTitle(tr("Predict with an ensemble"));
        title_->setText(tr("Ensemble of <b>%1</b> members (the mean of their outputs; agreement "
                           "under the candles), %2, trained on %3, %4 features, window %5")
                            .arg(ensemble_->size())
                            .arg(q(bundle_->experiment).toHtmlEscaped())
                            .arg(q(bundle_->trainedOn).toHtmlEscaped())
                            .arg(bundle_->features.size())
                            .arg(bundle_->data.window));
        return;
    }
    title_->setText(tr("Model: <b>%1</b>, epoch %2, trained on %3 (%4), %5 features, window %6, "
                       "%7 indicators")
                        .arg(q(bundle_->experiment).toHtmlEscaped())
                        .arg(bundle_->epoch)
                        .arg(q(bundle_->trainedOn).toHtmlEscaped())
                        .arg(q(timeframeName(bundle_->timeframe)))
                        .arg(bundle_->features.size())
                        .arg(bundle_->data.window)
                        .arg(q(indicatorDefinitionsName(bundle_->data.features.definitions))));
}

bool PredictDialog::openModelFile(const QString& path, QString* error) {
    if (job_->busy()) {
        if (error) *error = tr("A prediction runs; open a model when it has finished.");
        return false;
    }
    auto single = std::make_shared<ModelBundle>();
    auto ensemble = std::make_shared<EnsembleBundle>();
    try {
        loadAnyBundle(path.toStdString(), *single, *ensemble);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    if (ensemble->size() > 0)
        useModel(std::make_shared<const ModelBundle>(ensemble->common), ensemble);
    else
        useModel(single, nullptr);
    setWindowTitle(tr("Predict with %1").arg(QFileInfo(path).fileName()));
    if (!shownPath_.isEmpty()) predictFile(shownPath_);
    return true;
}

void PredictDialog::openModelFileDialog() {
    const QString path = openFileName(this, tr("Predict with a model file"), QString(),
                                      tr("Model bundles (*.safetensors);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openModelFile(path, &error)) QMessageBox::warning(this, tr("Open Model File"), error);
}

void PredictDialog::updateButtons() {
    const bool running = job_->busy();
    openButton_->setEnabled(!running);
    modelButton_->setEnabled(!running);
    cancelButton_->setVisible(running);
    // Only the rows of the file on show, and never while another file is read or run.
    exportButton_->setEnabled(!running && result_ != nullptr);
    progress_->setVisible(running);
}

bool PredictDialog::busy() const {
    return job_->busy();
}

void PredictDialog::openFileDialog() {
    const QString path = openFileName(this, tr("Apply the model to a price file"), QString(),
                                      tr("Price files (*.csv *.txt *.tsv);;All files (*)"));
    if (!path.isEmpty()) predictFile(path);
}

void PredictDialog::predictFile(const QString& path) {
    if (!job_->start(path)) return;
    saved_->hide();
    updateButtons();
}

void PredictDialog::cancelPrediction() {
    if (!job_->busy()) return;
    const QString name = QFileInfo(job_->path()).fileName();
    job_->cancel();
    updateButtons();
    QString text = tr("Cancelled: %1 was not predicted.").arg(name);
    if (!shownPath_.isEmpty())
        text += tr(" The chart and Export CSV show %1.").arg(QFileInfo(shownPath_).fileName());
    status_->setText(text.toHtmlEscaped());
}

void PredictDialog::showProgress(qint64 done, qint64 total) {
    if (!job_->busy()) return;
    const QString name = QFileInfo(job_->path()).fileName();
    if (total <= 0) {  // reading the file and building its samples: a busy bar
        progress_->setRange(0, 0);
        status_->setText(tr("Reading %1 and building its samples…").arg(name).toHtmlEscaped());
        return;
    }
    progress_->setRange(0, int(std::min<qint64>(total, INT_MAX)));
    progress_->setValue(int(std::min<qint64>(done, INT_MAX)));
    progress_->setFormat(tr("%1 of %2 rows")
                             .arg(QString::fromStdString(groupedCount(done)),
                                  QString::fromStdString(groupedCount(total))));
    status_->setText(tr("Running the model on %1…").arg(name).toHtmlEscaped());
}

void PredictDialog::showOutcome(const PredictOutcome& o) {
    updateButtons();
    if (!o.ok) {
        QString text = o.error;
        if (!shownPath_.isEmpty())  // the previous file's chart and rows stay
            text += tr(" (The chart and Export CSV still show %1.)")
                        .arg(QFileInfo(shownPath_).fileName());
        status_->setText(tr("<span style='color:#a00'>%1</span>").arg(text.toHtmlEscaped()));
        Q_EMIT finished(false, o.error);
        return;
    }
    result_ = o.result;
    bars_ = o.bars;
    shownPath_ = o.path;
    const PredictionResult& r = *o.result;
    chart_->setBars(o.bars, bundle_->data.fractalRule());
    std::vector<float> outs;
    outs.reserve(r.rows.size() * 3);
    for (const PredictionRow& row : r.rows)
        outs.insert(outs.end(), row.outputs.begin(), row.outputs.end());
    chart_->setSignals(r.rows.front().bar, std::move(outs),
                       ensemble_ ? tr("the ensemble of %1 members").arg(ensemble_->size())
                                 : tr("the model (epoch %1)").arg(bundle_->epoch));
    if (r.members > 1) {
        std::vector<float> agreement;
        agreement.reserve(r.rows.size());
        for (const PredictionRow& row : r.rows) agreement.push_back(row.agreement);
        chart_->setAgreement(r.rows.front().bar, std::move(agreement));
    }
    auto count = [](size_t n) { return QString::fromStdString(groupedCount(int64_t(n))); };
    QString status = tr("%1: %2 bars, %3 with a full window, %4 labelled")
                         .arg(QFileInfo(o.path).fileName(), count(o.bars->size()),
                              count(r.rows.size()), count(r.labelled))
                         .toHtmlEscaped();
    const QString other =
        otherInstrumentWarning(q(bundle_->trainedOn), QFileInfo(o.path).fileName());
    if (!other.isEmpty())
        status +=
            QStringLiteral("<br><span style='color:#a05a00'>%1</span>").arg(other.toHtmlEscaped());
    // Inputs far outside the training range (another instrument or price scale): named here,
    // since the signals on the chart would otherwise look as good as any.
    const QString range = q(outOfRangeWarningText(r.outOfRange)).trimmed();
    if (!range.isEmpty())
        status += QStringLiteral("<br><span style='color:#a05a00'>%1</span>")
                      .arg(range.toHtmlEscaped().replace('\n', QStringLiteral("<br>")));
    status_->setText(status);
    metrics_->setPlainText(q(predictionMetricsText(r.metrics)));
    showTrading(o);
    updateButtons();
    Q_EMIT finished(true, o.path);
}

QString PredictDialog::metricsText() const {
    return metrics_->toPlainText();
}

bool PredictDialog::exportCsv(const QString& path, QString* error) {
    if (job_->busy()) {
        if (error)
            *error = tr("%1 is being predicted; export when it has finished or is cancelled.")
                         .arg(QFileInfo(job_->path()).fileName());
        return false;
    }
    if (!result_) {
        if (error) *error = tr("Nothing predicted yet.");
        return false;
    }
    try {
        writeFileAtomic(path.toStdString(), predictionCsv(*result_));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = q(e.what());
        return false;
    }
}

void PredictDialog::exportCsvDialog() {
    const QString path = saveFileName(this, tr("Export predictions"),
                                      QStringLiteral("predictions.csv"), tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportCsv(path, &error)) {
        QMessageBox::warning(this, tr("Export predictions"), error);
        return;
    }
    // Said in the dialog, which covers the window's status bar, and in that status bar.
    const QString done = tr("Predictions written to %1").arg(QDir::toNativeSeparators(path));
    saved_->setText(done);
    saved_->show();
    if (auto* window = qobject_cast<QMainWindow*>(parentWidget()))
        window->statusBar()->showMessage(done, 6000);
}

}  // namespace nnwb
