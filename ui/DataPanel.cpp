#include "ui/DataPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "app/core/ExperimentDocument.h"
#include "app/core/FileInspectJob.h"
#include "app/core/QtText.h"
#include "model/DataSettings.h"
#include "model/FigureText.h"
#include "ui/FileDialogs.h"
#include "ui/SettingsFields.h"

namespace nnwb {

namespace {
enum SummaryRow { kFormat, kBars, kFirst, kLast, kFrame, kGaps, kFractals };

QLabel* messageLabel(QWidget* parent, const char* name, const char* colour,
                     const char* background) {
    auto* l = new QLabel(parent);
    l->setObjectName(QLatin1String(name));
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setStyleSheet(QStringLiteral("QLabel { color: %1; background: %2; border-radius: 3px; "
                                    "padding: 4px; }")
                         .arg(QLatin1String(colour), QLatin1String(background)));
    l->hide();
    return l;
}

}  // namespace

DataPanel::DataPanel(ExperimentDocument* doc, QWidget* parent)
    : QWidget(parent), doc_(doc), inspector_(new FileInspectJob(this)) {
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    fields_ = new SettingsFields(dataSettings(), this);
    auto* top = new QFormLayout;
    top->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    fields_->addRows("Source", top, this);
    layout->addLayout(top);
    sourcePages_ = new QStackedWidget(this);
    sourcePages_->addWidget(buildFilePage());
    sourcePages_->addWidget(buildSyntheticPage());
    layout->addWidget(sourcePages_);
    shape_ = new QLabel(this);
    shape_->setObjectName(QStringLiteral("dataShape"));
    shape_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(shape_);
    layout->addStretch(1);
    connect(fields_, &SettingsFields::edited, this, &DataPanel::commit);
    connectDocument();
    syncFromDocument();
    inspectCurrentFile();
}

QWidget* DataPanel::buildFilePage() {
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
    fileLayout->addLayout(buildSummary(filePage));
    error_ = messageLabel(filePage, "dataError", "#9b1c1c", "#fde2e1");
    fileLayout->addWidget(error_);
    warning_ = messageLabel(filePage, "dataWarning", "#7a4b00", "#fff4d6");
    fileLayout->addWidget(warning_);
    auto* sampleForm = new QFormLayout;
    sampleForm->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    fields_->addRows("Price file", sampleForm, filePage);
    fileLayout->addLayout(sampleForm);
    fileLayout->addWidget(buildFeatureBoxes(filePage));
    return filePage;
}

QFormLayout* DataPanel::buildSummary(QWidget* filePage) {
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
    return sumForm;
}

// One switch per entry of the feature table (model/data/Features.h), two columns.
QGroupBox* DataPanel::buildFeatureBoxes(QWidget* filePage) {
    features_ = new QGroupBox(tr("Features per bar"), filePage);
    auto* grid = new QGridLayout(features_);
    grid->setVerticalSpacing(2);
    for (int i = 0; i < kFeatureKinds; ++i) {
        const Feature f = static_cast<Feature>(i);
        featureBoxes_[i] = new QCheckBox(q(featureInfo(f).label), features_);
        featureBoxes_[i]->setObjectName(q(std::string("feature:") + featureKey(f)));
        featureBoxes_[i]->setToolTip(q(featureHelp(f)));
        grid->addWidget(featureBoxes_[i], i / 2, i % 2);
        connect(featureBoxes_[i], &QCheckBox::toggled, this, &DataPanel::commit);
    }
    return features_;
}

QWidget* DataPanel::buildSyntheticPage() {
    auto* synthPage = new QWidget(sourcePages_);
    auto* synthForm = new QFormLayout(synthPage);
    synthForm->setContentsMargins(0, 0, 0, 0);
    synthForm->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto* synthNote =
        new QLabel(tr("Gaussian inputs labelled by a fixed random linear teacher (3 classes). "
                      "For quick tests of a stack."),
                   synthPage);
    synthNote->setWordWrap(true);
    synthForm->addRow(synthNote);
    fields_->addRows("Synthetic task", synthForm, synthPage);
    return synthPage;
}

void DataPanel::connectDocument() {
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
        // An undo or redo may have brought back another file (or none): show that file's
        // summary; the error about the file on show before goes with it.
        if (currentFilePath() != shownPath_) {
            error_->hide();
            inspectCurrentFile();
        }
    });
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
    const QString path = openFileName(this, tr("Open price file"), dir,
                                      tr("Price files (*.csv *.txt *.tsv);;All files (*)"));
    if (!path.isEmpty()) openPriceFile(path);
}

DataPanel::~DataPanel() {
    inspector_->cancelAll();  // a file read still going reports to no one
    // A focused field is left from QWidget's destructor, after this one: no commit() then.
    disconnect(fields_, nullptr, this, nullptr);
}

void DataPanel::openPriceFile(const QString& path) {
    const QString shown = fileName_->text(), tip = fileName_->toolTip();
    fileName_->setText(tr("Reading %1 …").arg(QFileInfo(path).fileName()));
    const quint64 generation = documentGeneration_, request = ++importRequest_;
    inspectInBackground(
        path, [shown, tip, generation, request](DataPanel* self, const PriceFileInfo& info) {
            if (generation != self->documentGeneration_) return;  // another experiment since
            if (request != self->importRequest_) return;          // another file opened since
            if (info.ok) {
                self->bars_ = info.series;
                nlohmann::json data = self->doc_->experiment().data;
                data["source"] = "file";
                data["file"] = info.path;
                // A feature constant on this file (tick volume 0 on every bar) carries no
                // information: the experiment made for the file leaves it off (undo brings it
                // back).
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
    shownPath_ = path;
    if (path.isEmpty()) return;
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
    shownPath_ = QDir::cleanPath(QFileInfo(q(info.path)).absoluteFilePath());
    error_->hide();
    fileName_->setText(q(info.fileName));
    fileName_->setToolTip(q(info.path));
    summary_[kFormat]->setText(q(info.format));
    summary_[kBars]->setText(QString::fromStdString(groupedCount(int64_t(info.bars))));
    summary_[kFirst]->setText(q(info.first));
    summary_[kLast]->setText(q(info.last));
    summary_[kFrame]->setText(q(info.timeframe));
    summary_[kGaps]->setText(QString::fromStdString(groupedCount(int64_t(info.gaps))));
    summary_[kFractals]->setText(
        tr("%1 buy · %2 sell · %3 both")
            .arg(QString::fromStdString(groupedCount(int64_t(info.buy))),
                 QString::fromStdString(groupedCount(int64_t(info.sell))),
                 QString::fromStdString(groupedCount(int64_t(info.both)))));
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
    nlohmann::json d = doc_->experiment().data;
    sourcePages_->setCurrentIndex(d.value("source", std::string("file")) == "synthetic" ? 1 : 0);
    // Without the key: a file from before MT5 definitions existed, trained on textbook ones.
    if (!d.contains("indicators")) d["indicators"] = "textbook";
    fields_->show(d);
    const auto f = d.value("features", nlohmann::json::object());
    FeatureSpec spec;  // what a missing key means (the scale-free features are off)
    for (int i = 0; i < kFeatureKinds; ++i) {
        const char* key = featureKey(static_cast<Feature>(i));
        featureBoxes_[i]->setChecked(f.is_object() && f.contains(key) && f[key].is_boolean()
                                         ? f[key].get<bool>()
                                         : spec.enabled[size_t(i)]);
    }
    if (!d.contains("file")) {
        fileName_->setText(tr("No file — drop a price file here"));
        for (QLabel* l : summary_) l->setText(QStringLiteral("–"));
    }
    const DataShape shape = dataShapeOf(d);
    // A price sample is `window` bars of the switched-on features (the layers' units × window).
    const bool prices = d.value("source", std::string("file")) != "synthetic";
    shape_->setText(
        !shape.ok ? q(shape.error)
        : prices
            ? tr("Each sample: %1 × %2 → %3 targets")
                  .arg(shape.input.units == 1 ? tr("1 bar") : tr("%1 bars").arg(shape.input.units))
                  .arg(shape.input.window == 1 ? tr("1 feature")
                                               : tr("%1 features").arg(shape.input.window))
                  .arg(shape.targets)
            : tr("Each sample: %1 units × %2 values → %3 targets")
                  .arg(shape.input.units)
                  .arg(shape.input.window)
                  .arg(shape.targets));
    syncing_ = false;
    updateChecks();
}

void DataPanel::commit() {
    if (syncing_) return;
    nlohmann::json d = doc_->experiment().data;
    const bool synthetic = fields_->read(d, {"Source"}).value("source", "") == "synthetic";
    sourcePages_->setCurrentIndex(synthetic ? 1 : 0);
    if (synthetic) error_->hide();  // an import error is about the price file
    d = fields_->read(d, {"Source", synthetic ? "Synthetic task" : "Price file"});
    if (!synthetic) {
        nlohmann::json f = d.value("features", nlohmann::json::object());
        if (!f.is_object()) f = nlohmann::json::object();
        for (int i = 0; i < kFeatureKinds; ++i)
            f[featureKey(static_cast<Feature>(i))] = featureBoxes_[i]->isChecked();
        d["features"] = f;
        d.erase("samples");
        d.erase("units");
    }
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
