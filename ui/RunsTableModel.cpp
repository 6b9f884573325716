#include "ui/RunsTableModel.h"

#include <cmath>

#include <QBrush>
#include <QColor>
#include <QFileInfo>

#include "app/core/QtText.h"
#include "app/runs/StoredTrading.h"
#include "model/FigureText.h"

namespace nnwb {

namespace {
QString started(const std::string& iso) {  // 2026-11-23T10:40:12Z -> 2026-11-23 10:40
    const QString s = q(iso);
    return s.size() >= 16 ? s.left(10) + QLatin1Char(' ') + s.mid(11, 5) : s;
}

QVariant figure(const std::optional<double>& v, int decimals, int role) {
    if (!v) return role == Qt::DisplayRole ? QVariant(QStringLiteral("–")) : QVariant();
    return role == Qt::DisplayRole ? QVariant(QString::number(*v, 'f', decimals)) : QVariant(*v);
}

// The trading columns: key, decimals.
struct TradingColumn {
    const char* key;
    int decimals;
};
TradingColumn tradingColumn(int column) {
    switch (column) {
        case RunsTableModel::kTradeNet:
            return {"netPoints", 1};
        case RunsTableModel::kTradeProfitFactor:
            return {"profitFactor", 2};
        case RunsTableModel::kTradeSharpe:
            return {"sharpeAnnual", 2};
        case RunsTableModel::kTradeDrawdown:
            return {"maxDrawdownPoints", 1};
        default:
            return {"trades", 0};
    }
}
bool isTradingColumn(int c) {
    return c >= RunsTableModel::kTradeNet && c <= RunsTableModel::kTrades;
}

QVariant tradingFigure(const StoredRun& r, int column, int role) {
    const TradingColumn t = tradingColumn(column);
    const std::optional<double> v = storedTradingFigure(r.trading, t.key);
    // Grouped as every other count in the window ("-17,796.0"); "n/a" where there is none.
    if (role == Qt::DisplayRole)
        return q(v && !std::isnan(*v) ? groupedFixed(*v, t.decimals) : storedTradingText(v, 0));
    // Sorting: runs without figures after every run with them (either order).
    return v ? QVariant(*v) : QVariant();
}

QString dataName(const StoredRun& r) {
    if (r.dataFile.empty()) return q(r.dataDescription);
    return QFileInfo(q(r.dataFile)).fileName();
}
}  // namespace

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsTableModel::setRuns(std::vector<StoredRun> runs) {
    beginResetModel();
    runs_ = std::move(runs);
    endResetModel();
}

int RunsTableModel::rowOf(int64_t id) const {
    for (size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].id == id) return int(i);
    return -1;
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(runs_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : kColumnCount;
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[kColumnCount] = {"ID",
                                              "Name",
                                              "Started (UTC)",
                                              "Status",
                                              "Data",
                                              "Device",
                                              "Params",
                                              "Epochs",
                                              "Best val loss",
                                              "Best val acc % (signals)",
                                              "Best val missed %",
                                              "Trade net pts",
                                              "Profit factor",
                                              "Sharpe (ann.)",
                                              "Max DD pts",
                                              "Trades",
                                              "Tags"};
    return tr(names[section]);
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == kName || index.column() == kTags) f |= Qt::ItemIsEditable;
    return f;
}

QVariant RunsTableModel::toolTip(const StoredRun& r, int column) const {
    if (column == kStatus && !r.error.empty()) return q(r.error);
    if (column == kData) return q(r.dataFile.empty() ? r.dataDescription : r.dataFile);
    if (column == kDevice) return q(r.deviceName);
    if (column == kBestAccuracy)
        return tr("Best validation accuracy (signals of that epoch); n/a below %1 signals")
            .arg(kMinSignalsForAccuracy);
    if (isTradingColumn(column))
        return r.trading.is_object() && r.trading.contains("error")
                   ? tr("Not evaluated: %1").arg(q(r.trading["error"].dump()))
                   : tr("The validation part traded with the best epoch's weights "
                        "(docs/trading.md); n/a: the run has no trading figures");
    return {};
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(runs_.size())) return {};
    const StoredRun& r = runs_[size_t(index.row())];
    const bool sort = role == Qt::UserRole;
    if (role == Qt::ForegroundRole && index.column() == kStatus) {
        if (r.status == runstatus::kFailed || r.status == runstatus::kInterrupted)
            return QBrush(QColor(0xb0, 0x20, 0x20));
        if (r.status == runstatus::kRunning) return QBrush(QColor(0x20, 0x60, 0xb0));
        return {};
    }
    if (role == Qt::ToolTipRole) return toolTip(r, index.column());
    if (role == Qt::TextAlignmentRole) {
        const int c = index.column();
        if (c == kId || c == kParameters || c == kEpochs || c == kBestLoss || c == kBestAccuracy ||
            c == kBestMissed || isTradingColumn(c))
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole && !sort) return {};
    switch (index.column()) {
        case kId:
            return sort ? QVariant(qlonglong(r.id)) : QVariant(QString::number(r.id));
        case kName:
            return sort ? QVariant(q(r.name).toLower()) : QVariant(q(r.name));
        case kStarted:
            return sort ? QVariant(qlonglong(r.id)) : QVariant(started(r.startedAt));
        case kStatus:
            return q(runStatusLabel(r.status));
        case kData:
            return sort ? QVariant(dataName(r).toLower()) : QVariant(dataName(r));
        case kDevice:
            return q(r.deviceId);
        case kParameters:
            return sort ? QVariant(qlonglong(r.parameters))
                        : QVariant(q(groupedCount(r.parameters)));
        case kEpochs:
            return sort ? QVariant(r.epochsDone)
                        : QVariant(QStringLiteral("%1/%2").arg(r.epochsDone).arg(r.epochsPlanned));
        case kBestLoss:
            return figure(r.bestValLoss, 5, role);
        case kBestAccuracy:
            // With its signals; n/a when no epoch emitted enough (model/FigureText.h).
            if (role == Qt::DisplayRole) return q(bestValAccuracyCell(r));
            return figure(r.bestValAccuracy, 2, role);
        case kBestMissed:
            return figure(r.bestValMissed, 2, role);
        case kTradeNet:
        case kTradeProfitFactor:
        case kTradeSharpe:
        case kTradeDrawdown:
        case kTrades:
            return tradingFigure(r, index.column(), role == Qt::EditRole ? Qt::DisplayRole : role);
        case kTags:
            return q(r.tags);
    }
    return {};
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid()) return false;
    StoredRun& r = runs_[size_t(index.row())];
    const QString text = value.toString().trimmed();
    if (index.column() == kName) {
        if (text.isEmpty()) return false;
        r.name = text.toStdString();
    } else if (index.column() == kTags) {
        QStringList tags;
        for (const QString& t : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
            tags << t.trimmed();
        r.tags = tags.join(QLatin1Char(',')).toStdString();
    } else {
        return false;
    }
    Q_EMIT dataChanged(index, index);
    Q_EMIT metaEdited(qlonglong(r.id), q(r.name), q(r.tags));
    return true;
}

}  // namespace nnwb
