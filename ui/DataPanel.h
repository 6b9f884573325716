// The Data pane: the source (price file or synthetic task), opening a price file (dialog or
// drag-and-drop) with its summary (file, bars, range, time frame, gaps, fractal counts) read off
// the GUI thread, the feature switches, window length and validation share. An import error is
// shown in the pane with its FILE:LINE message and the previous data stays. GUI thread only
// (the file is read on a thread of its own, whose result comes back through a CallQueue).
#pragma once

#include <functional>
#include <memory>

#include <QWidget>

#include "app/core/DataAdapter.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QSpinBox;
class QStackedWidget;

namespace nnwb {

class CallQueue;
class ExperimentDocument;

class DataPanel : public QWidget {
    Q_OBJECT
public:
    explicit DataPanel(ExperimentDocument* doc, QWidget* parent = nullptr);
    ~DataPanel() override;

    // Reads `path` in the background; on success the document's data section points at it.
    void openPriceFile(const QString& path);
    QString errorText() const;
    bool isLoading() const { return loading_ > 0; }

public Q_SLOTS:
    void browse();

    // The bars of the experiment's price file as last read (null before), for the price chart.
    std::shared_ptr<const BarSeries> bars() const { return bars_; }

Q_SIGNALS:
    void priceFileInspected(bool ok, const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private Q_SLOTS:
    void runQueuedCalls();

private:
    // Reads `path` on a thread of its own; `done` then runs on the GUI thread, unless the
    // panel is gone by then.
    void inspectInBackground(const QString& path,
                             std::function<void(DataPanel*, const PriceFileInfo&)> done);
    void syncFromDocument();
    void commit();  // widgets → document
    void showSummary(const PriceFileInfo& info);
    void showError(const QString& message);
    void inspectCurrentFile();

    ExperimentDocument* doc_;
    std::shared_ptr<CallQueue> inspected_;  // shared with the reading threads
    std::shared_ptr<const BarSeries> bars_;
    bool syncing_ = false;
    int loading_ = 0;
    QComboBox* source_;
    QStackedWidget* sourcePages_;
    QLabel* fileName_;
    QLabel* summary_[7];
    QLabel* error_;
    QGroupBox* features_;
    QCheckBox* featureBoxes_[12];
    QSpinBox* window_;
    QDoubleSpinBox* validation_;
    QComboBox* normalization_;
    QCheckBox* positional_;
    QComboBox* fractal_;
    QComboBox* indicators_;  // data.indicators: mt5 | textbook
    QSpinBox* synthSamples_;
    QSpinBox* synthUnits_;
    QSpinBox* synthWindow_;
    QLabel* shape_;
};

}  // namespace nnwb
