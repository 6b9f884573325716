// The Data pane: source (price file or synthetic task), opening a price file (dialog or drop)
// with its summary read off the GUI thread, the feature switches and the data settings (both
// generated from their tables in model/);
// import errors (FILE:LINE, the previous data stays), and warnings for a file too short for the
// settings (problem(): Train is disabled) or with constant features. GUI thread only (the file
// is read by a FileInspectJob of app/core, whose result comes back to this thread).
#pragma once

#include <functional>
#include <memory>

#include <QWidget>

#include "app/core/DataAdapter.h"

class QCheckBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QStackedWidget;

namespace nnwb {

class ExperimentDocument;
class FileInspectJob;
class SettingsFields;

class DataPanel : public QWidget {
    Q_OBJECT
public:
    explicit DataPanel(ExperimentDocument* doc, QWidget* parent = nullptr);
    ~DataPanel() override;

    // Reads `path` in the background; on success the document's data section points at it.
    void openPriceFile(const QString& path);
    QString errorText() const;
    bool isLoading() const { return loading_ > 0; }
    // Why the experiment cannot train on its price file as loaded ("... needs at least N bars,
    // file has M"), or "" (no file yet, synthetic data, or usable). The window disables Train.
    QString problem() const { return problem_; }
    // The constant-feature warnings on show ("" when none).
    QString warningText() const;

public Q_SLOTS:
    void browse();

    // The bars of the experiment's price file as last read (null before), for the price chart.
    std::shared_ptr<const BarSeries> bars() const { return bars_; }

Q_SIGNALS:
    void priceFileInspected(bool ok, const QString& message);
    void problemChanged();

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    // Reads `path` in the background (inspector_); `done` then runs on the GUI thread, unless
    // the panel is gone by then.
    void inspectInBackground(const QString& path,
                             std::function<void(DataPanel*, const PriceFileInfo&)> done);
    void syncFromDocument();
    void commit();  // widgets → document
    void showSummary(const PriceFileInfo& info);
    void showError(const QString& message);
    void inspectCurrentFile();
    // The too-few-bars problem and the constant-feature warnings of the file on show, for the
    // document's data section as it is now.
    void updateChecks();
    QString currentFilePath() const;  // the document's price file, absolute ("" if none)
    // The pane's parts; the settings fields come from the data settings table
    // (model/DataSettings.h), the feature switches from the feature table.
    QWidget* buildFilePage();
    QFormLayout* buildSummary(QWidget* filePage);
    QGroupBox* buildFeatureBoxes(QWidget* filePage);
    QWidget* buildSyntheticPage();
    void connectDocument();

    ExperimentDocument* doc_;
    FileInspectJob* inspector_;  // a child: its results die with the panel
    std::shared_ptr<const BarSeries> bars_;
    bool syncing_ = false;
    int loading_ = 0;
    quint64 documentGeneration_ = 0;
    // Price files opened (each one's result is dropped once a later one was asked for: two
    // reads run side by side, and a slow failing file ended after a good one, its error left
    // on show).
    quint64 importRequest_ = 0;
    QString shownPath_;  // the file whose summary is on show (or being read)  // counts
                         // replacements; a late file read checks it
    SettingsFields* fields_;
    QStackedWidget* sourcePages_;
    QLabel* fileName_;
    QLabel* summary_[7];
    QLabel* error_;
    QLabel* warning_;  // constant features of the file, too few bars
    QString problem_;
    std::shared_ptr<const PriceFileInfo> info_;  // the file on show (null: none)
    QGroupBox* features_;
    QCheckBox* featureBoxes_[kFeatureKinds];
    QLabel* shape_;
};

}  // namespace nnwb
