#include "ui/DataPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QMimeData>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "app/core/ExperimentDocument.h"
#include "app/core/FileInspectJob.h"

namespace nnwb {

namespace {
QString q(const std::string& s) {
    return QString::fromStdString(s);
}
enum SummaryRow { kFormat, kBars, kFirst, kLast, kFrame, kGaps, kFractals };

}  // namespace

DataPanel::DataPanel(ExperimentDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc), inspector_(new FileInspectJob(this)) {
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    auto* top = new QFormLayout;
    top->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    source_ = new QComboBox(this);
    source_->setObjectName(QStringLiteral("dataSource"));
    source_->addItem(tr("Price file"), QStringLiteral("file"));
    source_->addItem(tr("Synthetic task"), QStringLiteral("synthetic"));
    top->addRow(tr("Source:"), source_);
    layout->addLayout(top);

    sourcePages_ = new QStackedWidget(this);
    // --- price file page
    auto* filePage = new QWidget(sourcePages_);
    auto* fileLayout = new QVBoxLayout(filePage);
    fileLayout->setContentsMargins(0, 0, 0, 0);
    auto* fileRow = new QHBoxLayout;
    fileName_ = new QLabel(tr("No file — drop a price file here"), filePage);
    fileName_->setObjectName(QStringLiteral("dataFileName"));
    fileName_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = fileName_->font();
    bold.setBold(true);
    fileName_->setFont(bold);
    auto* openButton = new QPushButton(tr("Open…"), filePage);
    openButton->setObjectName(QStringLiteral("openPriceFile"));
    openButton->setToolTip(tr("Open an MT5 / MT4 / generic OHLCV CSV file"));
    connect(openButton, &QPushButton::clicked, this, &DataPanel::browse);
    fileRow->addWidget(fileName_, 1);
    fileRow->addWidget(openButton);
    fileLayout->addLayout(fileRow);
    auto* sumForm = new QFormLayout;
    sumForm->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    const QString labels[7] = {tr("Format:"),     tr("Bars:"), tr("First bar:"), tr("Last bar:"),
                               tr("Time frame:"), tr("Gaps:"), tr("Fractals:")};
    for (int i = 0; i < 7; ++i) {
        summary_[i] = new QLabel(QStringLiteral("–"), filePage);
        summary_[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        sumForm->addRow(labels[i], summary_[i]);
    }
    summary_[kFractals]->setObjectName(QStringLiteral("dataFractals"));
    summary_[kBars]->setObjectName(QStringLiteral("dataBars"));
    fileLayout->addLayout(sumForm);
    error_ = new QLabel(filePage);
    error_->setObjectName(QStringLiteral("dataError"));
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet(QStringLiteral(
        "QLabel { color: #9b1c1c; background: #fde2e1; border-radius: 3px; padding: 4px; }"));
    error_->hide();
    fileLayout->addWidget(error_);
    warning_ = new QLabel(filePage);
    warning_->setObjectName(QStringLiteral("dataWarning"));
    warning_->setWordWrap(true);
    warning_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    warning_->setStyleSheet(QStringLiteral(
        "QLabel { color: #7a4b00; background: #fff4d6; border-radius: 3px; padding: 4px; }"));
    warning_->hide();
    fileLayout->addWidget(warning_);

    auto* sampleForm = new QFormLayout;
    sampleForm->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    window_ = new QSpinBox(filePage);
    window_->setObjectName(QStringLiteral("dataWindow"));
    window_->setRange(2, 4096);
    window_->setSuffix(tr(" bars"));
    window_->setKeyboardTracking(false);
    validation_ = new QDoubleSpinBox(filePage);
    validation_->setObjectName(QStringLiteral("dataValidation"));
    validation_->setRange(0, 90);
    validation_->setDecimals(0);
    validation_->setSuffix(tr(" %"));
    validation_->setKeyboardTracking(false);
    validation_->setToolTip(tr("The newest share of the samples is used for validation"));
    normalization_ = new QComboBox(filePage);
    normalization_->addItem(tr("z-score (training part)"), QStringLiteral("zscore"));
    normalization_->addItem(tr("none (as MQL5)"), QStringLiteral("none"));
    positional_ = new QCheckBox(tr("add sinusoidal positional encoding"), filePage);
    fractal_ = new QComboBox(filePage);
    fractal_->addItem(tr("3 bars"), QStringLiteral("3bar"));
    fractal_->addItem(tr("5 bars (Williams)"), QStringLiteral("5bar"));
    sampleForm->addRow(tr("Window:"), window_);
    sampleForm->addRow(tr("Validation:"), validation_);
    sampleForm->addRow(tr("Normalize:"), normalization_);
    sampleForm->addRow(tr("Fractal rule:"), fractal_);
    indicators_ = new QComboBox(filePage);
    indicators_->setObjectName(QStringLiteral("indicatorDefinitions"));
    indicators_->addItem(tr("MetaTrader 5"), QStringLiteral("mt5"));
    indicators_->addItem(tr("textbook"), QStringLiteral("textbook"));
    indicators_->setToolTip(
        tr("MetaTrader 5: ATR = simple average of the true range, MACD "
           "signal = simple average of MACD (as an Expert Advisor reads "
           "them); textbook: Wilder's ATR, EMA signal line"));
    sampleForm->addRow(tr("Indicators:"), indicators_);
    sampleForm->addRow(QString(), positional_);
    fileLayout->addLayout(sampleForm);

    features_ = new QGroupBox(tr("Features per bar"), filePage);
    auto* grid = new QGridLayout(features_);
    grid->setVerticalSpacing(2);
    const auto list = featureList();
    for (int i = 0; i < kFeatureKinds; ++i) {
        featureBoxes_[i] = new QCheckBox(q(list[i].second), features_);
        featureBoxes_[i]->setObjectName(q("feature:" + list[i].first));
        featureBoxes_[i]->setToolTip(q(featureHelp(list[i].first)));
        grid->addWidget(featureBoxes_[i], i / 2, i % 2);
        connect(featureBoxes_[i], &QCheckBox::toggled, this, &DataPanel::commit);
    }
    fileLayout->addWidget(features_);
    sourcePages_->addWidget(filePage);

    // --- synthetic page
    auto* synthPage = new QWidget(sourcePages_);
    auto* synthForm = new QFormLayout(synthPage);
    synthForm->setContentsMargins(0, 0, 0, 0);
    synthForm->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto* synthNote =
        new QLabel(tr("Gaussian inputs labelled by a fixed random linear teacher (3 classes). "
                      "For quick tests of a stack."),
                   synthPage);
    synthNote->setWordWrap(true);
    synthSamples_ = new QSpinBox(synthPage);
    synthSamples_->setRange(4, 10000000);
    synthUnits_ = new QSpinBox(synthPage);
    synthUnits_->setRange(1, 4096);
    synthWindow_ = new QSpinBox(synthPage);
    synthWindow_->setRange(1, 4096);
    for (QSpinBox* s : {synthSamples_, synthUnits_, synthWindow_}) s->setKeyboardTracking(false);
    synthForm->addRow(synthNote);
    synthForm->addRow(tr("Samples:"), synthSamples_);
    synthForm->addRow(tr("Units (sequence):"), synthUnits_);
    synthForm->addRow(tr("Window (values):"), synthWindow_);
    sourcePages_->addWidget(synthPage);
    layout->addWidget(sourcePages_);

    shape_ = new QLabel(this);
    shape_->setObjectName(QStringLiteral("dataShape"));
    shape_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(shape_);
    layout->addStretch(1);

    connect(source_, qOverload<int>(&QComboBox::currentIndexChanged), this, &DataPanel::commit);
    connect(window_, qOverload<int>(&QSpinBox::valueChanged), this, &DataPanel::commit);
    connect(validation_, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
            &DataPanel::commit);
    connect(normalization_, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &DataPanel::commit);
    connect(fractal_, qOverload<int>(&QComboBox::currentIndexChanged), this, &DataPanel::commit);
    connect(indicators_, qOverload<int>(&QComboBox::currentIndexChanged), this, &DataPanel::commit);
    connect(positional_, &QCheckBox::toggled, this, &DataPanel::commit);
    for (QSpinBox* s : {synthSamples_, synthUnits_, synthWindow_})
        connect(s, qOverload<int>(&QSpinBox::valueChanged), this, &DataPanel::commit);

    connect(doc_, &ExperimentDocument::replaced, this, [this] {
        // A new experiment: nothing of the previous one's file stays on show (issue 13).
        ++documentGeneration_;
        error_->hide();
        fileName_->setText(tr("No file — drop a price file here"));
        fileName_->setToolTip({});
        for (QLabel* l : summary_) l->setText(QStringLiteral("–"));
        info_.reset();
        syncFromDocument();
        inspectCurrentFile();
    });
    connect(doc_, &ExperimentDocument::dataChanged, this, [this] {
        syncFromDocument();
        // An undo or redo may have brought back another file: show that file's summary.
        if (currentFilePath() != shownPath_) inspectCurrentFile();
    });
    syncFromDocument();
    inspectCurrentFile();
}

QString DataPanel::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void DataPanel::browse() {
    // The folder of the current price file (resolved against the experiment's folder), else
    // the experiment's folder; never a bare name that the dialog would take as a file name.
    QString dir = currentFilePath();
    dir = dir.isEmpty() ? QDir(q(doc_->experiment().baseDir)).absolutePath()
                        : QFileInfo(dir).absolutePath();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open price file"), dir, tr("Price files (*.csv *.txt *.tsv);;All files (*)"));
    if (!path.isEmpty()) openPriceFile(path);
}

DataPanel::~DataPanel() {
    inspector_->cancelAll();  // a file read still going reports to no one
}

void DataPanel::openPriceFile(const QString& path) {
    const QString shown = fileName_->text(), tip = fileName_->toolTip();
    fileName_->setText(tr("Reading %1 …").arg(QFileInfo(path).fileName()));
    const quint64 generation = documentGeneration_;
    inspectInBackground(path, [shown, tip, generation](DataPanel* self, const PriceFileInfo& info) {
        if (generation != self->documentGeneration_) return;  // another experiment since
        if (info.ok) {
            self->bars_ = info.series;
            nlohmann::json data = self->doc_->experiment().data;
            data["source"] = "file";
            data["file"] = info.path;
            // A feature constant on this file (tick volume 0 on every bar) carries no
            // information: the experiment made for the file leaves it off (undo brings it back).
            data = withConstantFeaturesOff(data, info);
            self->info_ = std::make_shared<const PriceFileInfo>(info);
            self->doc_->setData(
                data, tr("Open price file %1").arg(QString::fromStdString(info.fileName)));
            self->showSummary(info);
        } else {
            // The previous data stays, and so does its header.
            self->fileName_->setText(shown);
            self->fileName_->setToolTip(tip);
            self->showError(q(info.error));
            self->syncFromDocument();
        }
    });
}

QString DataPanel::currentFilePath() const {
    const auto& data = doc_->experiment().data;
    if (data.value("source", std::string("file")) != "file") return {};
    if (!data.contains("file") || !data["file"].is_string()) return {};
    QString path = q(data["file"].get<std::string>());
    if (QFileInfo(path).isRelative())
        path = QDir(q(doc_->experiment().baseDir)).absoluteFilePath(path);
    return QDir::cleanPath(path);
}

void DataPanel::inspectCurrentFile() {
    const QString path = currentFilePath();
    if (path.isEmpty()) return;
    shownPath_ = path;
    const quint64 generation = documentGeneration_;
    inspectInBackground(path, [generation](DataPanel* self, const PriceFileInfo& info) {
        if (generation != self->documentGeneration_) return;
        if (info.ok) self->bars_ = info.series;
        self->info_ = info.ok ? std::make_shared<const PriceFileInfo>(info) : nullptr;
        if (info.ok)
            self->showSummary(info);
        else
            self->showError(q(info.error));
    });
}

void DataPanel::inspectInBackground(const QString& path,
                                    std::function<void(DataPanel*, const PriceFileInfo&)> done) {
    ++loading_;
    // The inspector belongs to this panel: a result that comes after the panel is gone is
    // dropped with it.
    inspector_->inspect(path, [this, done = std::move(done)](const PriceFileInfo& info) {
        --loading_;
        done(this, info);
        Q_EMIT priceFileInspected(info.ok, q(info.ok ? info.path : info.error));
    });
}

void DataPanel::showSummary(const PriceFileInfo& info) {
    const QLocale loc;
    shownPath_ = QDir::cleanPath(QFileInfo(q(info.path)).absoluteFilePath());
    error_->hide();
    fileName_->setText(q(info.fileName));
    fileName_->setToolTip(q(info.path));
    summary_[kFormat]->setText(q(info.format));
    summary_[kBars]->setText(loc.toString(qulonglong(info.bars)));
    summary_[kFirst]->setText(q(info.first));
    summary_[kLast]->setText(q(info.last));
    summary_[kFrame]->setText(q(info.timeframe));
    summary_[kGaps]->setText(loc.toString(qulonglong(info.gaps)));
    summary_[kFractals]->setText(tr("%1 buy · %2 sell · %3 both")
                                     .arg(loc.toString(qulonglong(info.buy)),
                                          loc.toString(qulonglong(info.sell)),
                                          loc.toString(qulonglong(info.both))));
    updateChecks();
}

QString DataPanel::warningText() const {
    return warning_->isHidden() ? QString() : warning_->text();
}

void DataPanel::updateChecks() {
    const auto& d = doc_->experiment().data;
    QString problem;
    QStringList lines;
    const bool file = d.value("source", std::string("file")) == "file";
    if (file && info_ && QDir::cleanPath(q(info_->path)) == currentFilePath()) {
        problem = q(dataProblem(d, info_->bars, info_->fileName));
        if (!problem.isEmpty()) lines << problem;
        for (const std::string& w : constantFeatureWarnings(d, *info_)) lines << q(w);
    }
    warning_->setText(lines.join(QStringLiteral("\n")));
    warning_->setVisible(!lines.isEmpty());
    if (problem != problem_) {
        problem_ = problem;
        Q_EMIT problemChanged();
    }
}

void DataPanel::showError(const QString& message) {
    error_->setText(message);
    error_->show();
    sourcePages_->setCurrentIndex(0);
}

void DataPanel::syncFromDocument() {
    syncing_ = true;
    const auto& d = doc_->experiment().data;
    const std::string source = d.value("source", std::string("file"));
    source_->setCurrentIndex(source == "synthetic" ? 1 : 0);
    sourcePages_->setCurrentIndex(source == "synthetic" ? 1 : 0);
    auto intOr = [&](const char* k, int def) {
        return d.contains(k) && d[k].is_number() ? d[k].get<int>() : def;
    };
    window_->setValue(intOr("window", 20));
    const double share = d.contains("validationShare") && d["validationShare"].is_number()
                             ? d["validationShare"].get<double>()
                             : (source == "synthetic" ? 0.25 : 0.2);
    validation_->setValue(share * 100.0);
    normalization_->setCurrentIndex(d.value("normalization", std::string("zscore")) == "none");
    fractal_->setCurrentIndex(d.value("fractal", std::string("3bar")) == "5bar");
    // Without the key: a file from before MT5 definitions existed, trained on textbook ones.
    indicators_->setCurrentIndex(d.value("indicators", std::string("textbook")) == "mt5" ? 0 : 1);
    positional_->setChecked(d.value("positionalEncoding", false));
    const auto f = d.value("features", nlohmann::json::object());
    const auto list = featureList();
    FeatureSpec spec;  // what a missing key means (the scale-free features are off)
    for (int i = 0; i < kFeatureKinds; ++i)
        featureBoxes_[i]->setChecked(f.is_object() && f.contains(list[i].first) &&
                                             f[list[i].first].is_boolean()
                                         ? f[list[i].first].get<bool>()
                                         : spec.enabled[size_t(i)]);
    synthSamples_->setValue(intOr("samples", 512));
    synthUnits_->setValue(intOr("units", 4));
    synthWindow_->setValue(intOr("window", 3));
    if (!d.contains("file")) {
        fileName_->setText(tr("No file — drop a price file here"));
        for (QLabel* l : summary_) l->setText(QStringLiteral("–"));
    }
    const DataShape shape = dataShapeOf(d);
    shape_->setText(shape.ok ? tr("Each sample: %1 (units × window) → %2 targets")
                                   .arg(q(shape.input.str()))
                                   .arg(shape.targets)
                             : q(shape.error));
    syncing_ = false;
    updateChecks();
}

void DataPanel::commit() {
    if (syncing_) return;
    nlohmann::json d = doc_->experiment().data;
    const bool synthetic = source_->currentIndex() == 1;
    sourcePages_->setCurrentIndex(synthetic ? 1 : 0);
    if (synthetic) error_->hide();  // an import error is about the price file
    d["source"] = synthetic ? "synthetic" : "file";
    if (synthetic) {
        d["samples"] = synthSamples_->value();
        d["units"] = synthUnits_->value();
        d["window"] = synthWindow_->value();
    } else {
        d["window"] = window_->value();
        d["normalization"] = normalization_->currentData().toString().toStdString();
        d["fractal"] = fractal_->currentData().toString().toStdString();
        d["indicators"] = indicators_->currentData().toString().toStdString();
        d["positionalEncoding"] = positional_->isChecked();
        nlohmann::json f = d.value("features", nlohmann::json::object());
        if (!f.is_object()) f = nlohmann::json::object();
        const auto list = featureList();
        for (int i = 0; i < kFeatureKinds; ++i) f[list[i].first] = featureBoxes_[i]->isChecked();
        d["features"] = f;
        d.erase("samples");
        d.erase("units");
    }
    d["validationShare"] = validation_->value() / 100.0;
    doc_->setData(d);
}

void DataPanel::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void DataPanel::dropEvent(QDropEvent* e) {
    const auto urls = e->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    openPriceFile(urls.first().toLocalFile());
    e->acceptProposedAction();
}

}  // namespace nnwb
