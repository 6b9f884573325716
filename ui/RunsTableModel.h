// The table of stored runs shown by the Runs view: one row per run (id, name, start, status,
// data, device, parameters, epochs, best validation figures, trading figures, tags), raw values
// under Qt::UserRole for sorting, name and tags editable (the edit is announced, the view stores
// it). GUI thread only.
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "app/runs/StoredRun.h"

namespace nnwb {

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        kId,
        kName,
        kStarted,
        kStatus,
        kData,
        kDevice,
        kParameters,
        kEpochs,
        kBestLoss,
        kBestAccuracy,
        kBestMissed,
        // The stored trading figures (validation part, best epoch's weights): "n/a" for none.
        kTradeNet,
        kTradeProfitFactor,
        kTradeSharpe,
        kTradeDrawdown,
        kTrades,
        kTags,
        kColumnCount
    };
    explicit RunsTableModel(QObject* parent = nullptr);

    void setRuns(std::vector<StoredRun> runs);
    const StoredRun& run(int row) const { return runs_.at(size_t(row)); }
    int rowOf(int64_t id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

Q_SIGNALS:
    // The user edited a run's name or tags in the table.
    void metaEdited(qint64 id, const QString& name, const QString& tags);

private:
    QVariant toolTip(const StoredRun& r, int column) const;

    std::vector<StoredRun> runs_;
};

}  // namespace nnwb
