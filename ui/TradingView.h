// Under the price chart: how the shown signals trade. A caption (whose signals, which costs,
// or why there is no evaluation), the equity curve (EquityChart) on the price chart's bar axis,
// the figures table (TradingTable) and buttons for the trading rules (TradingSettingsDialog)
// and the CSV exports. Shows what a TradingPresenter holds. GUI thread only.
#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QPushButton;

namespace nnwb {

class EquityChart;
class ExperimentDocument;
class TradingPresenter;
struct TradingReport;
struct TradingSettings;
class TradingTable;

class TradingView : public QWidget {
    Q_OBJECT
public:
    TradingView(TradingPresenter* presenter, ExperimentDocument* doc, QWidget* parent = nullptr);

    EquityChart* equityChart() const { return chart_; }
    TradingTable* table() const { return table_; }
    // The caption's whole text (shown on one line, elided to the view's width, whole in its
    // tooltip, so that at 1280×720 the equity curve and the table keep the pane's height).
    QString caption() const { return captionText_; }
    // Hides the caption line; the buttons stay (the Trading tab's verdict and caption say whose
    // signals, the trades, net and spread: elided on one line, it only repeated them).
    void hideCaption();
    // The costs the report was traded with, as the captions name them: "spread from the file,
    // commission 2 points a round trip, no slippage" (`settings`: the presenter's, those
    // applied).
    static QString costsText(const TradingReport& report, const TradingSettings& settings);
    // The exports behind the buttons, without their file dialogs; the caption's note says
    // what was written or why not.
    bool exportTradesTo(const QString& path);
    bool exportEquityTo(const QString& path);

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void refresh();
    void setCaption(const QString& text);
    void elideCaption();
    void editRules();
    void exportWithDialog(bool trades);
    QString defaultExportName(bool trades) const;

    TradingPresenter* presenter_;
    ExperimentDocument* doc_;
    QLabel* caption_;
    QString captionText_;
    QLabel* note_;
    EquityChart* chart_;
    TradingTable* table_;
    QPushButton* exportTrades_;
    QPushButton* exportEquity_;
};

}  // namespace nnwb
