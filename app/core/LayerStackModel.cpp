#include "app/core/LayerStackModel.h"

#include "app/core/DataAdapter.h"
#include "app/core/ExperimentDocument.h"
#include "app/core/ModelEditCommand.h"
#include "model/layers/LayerRegistry.h"

namespace nnwb {

LayerStackModel::LayerStackModel(ExperimentDocument* doc, QObject* parent)
    : QObject(parent), doc_(doc) {
    connect(doc_, &ExperimentDocument::layersChanged, this, [this](int selection) {
        reanalyze();
        Q_EMIT changed(selection);
    });
    connect(doc_, &ExperimentDocument::dataChanged, this, [this] {
        reanalyze();
        Q_EMIT changed(-1);
    });
    connect(doc_, &ExperimentDocument::replaced, this, [this] {
        reanalyze();
        Q_EMIT changed(count() > 0 ? 0 : -1);
    });
    reanalyze();
}

const nlohmann::json& LayerStackModel::layers() const {
    return doc_->layers();
}

int LayerStackModel::count() const {
    return static_cast<int>(layers().size());
}

QString LayerStackModel::problem() const {
    if (analysis_.valid) return {};
    return QString::fromStdString(analysis_.error);
}

QString LayerStackModel::typeLabel(const std::string& type) {
    if (const auto* info = findLayerType(type)) return QString::fromStdString(info->label);
    return QString::fromStdString(type);
}

bool LayerStackModel::addLayer(const std::string& type, int at) {
    nlohmann::json layer;
    try {
        layer = defaultLayerJson(type);
    } catch (const std::exception&) {
        return false;
    }
    nlohmann::json after = layers();
    if (at < 0 || at > count()) at = count();
    after.insert(after.begin() + at, layer);
    push(tr("Add %1").arg(typeLabel(type)), std::move(after), -1, at);
    return true;
}

bool LayerStackModel::removeLayer(int index) {
    if (index < 0 || index >= count()) return false;
    nlohmann::json after = layers();
    const QString label = typeLabel(after[index].value("type", std::string()));
    after.erase(after.begin() + index);
    const int select = after.empty() ? -1 : std::min(index, static_cast<int>(after.size()) - 1);
    push(tr("Remove %1").arg(label), std::move(after), index, select);
    return true;
}

bool LayerStackModel::moveLayer(int index, int delta) {
    const int to = index + delta;
    if (index < 0 || index >= count() || to < 0 || to >= count() || delta == 0) return false;
    nlohmann::json after = layers();
    nlohmann::json layer = after[index];
    after.erase(after.begin() + index);
    after.insert(after.begin() + to, layer);
    const QString label = typeLabel(layer.value("type", std::string()));
    push(delta < 0 ? tr("Move %1 up").arg(label) : tr("Move %1 down").arg(label), std::move(after),
         index, to);
    return true;
}

bool LayerStackModel::duplicateLayer(int index) {
    if (index < 0 || index >= count()) return false;
    nlohmann::json after = layers();
    nlohmann::json layer = after[index];
    after.insert(after.begin() + index + 1, layer);
    push(tr("Duplicate %1").arg(typeLabel(layer.value("type", std::string()))), std::move(after),
         index, index + 1);
    return true;
}

bool LayerStackModel::setParameter(int index, const std::string& key, const nlohmann::json& value) {
    if (index < 0 || index >= count()) return false;
    if (layers()[index].value(key, nlohmann::json()) == value) return true;
    nlohmann::json after = layers();
    after[index][key] = value;
    const nlohmann::json before = layers()[index].value(key, nlohmann::json());
    push(tr("Layer %1: %2 %3 → %4")
             .arg(index + 1)
             .arg(QString::fromStdString(key),
                  QString::fromStdString(before.is_string() ? before.get<std::string>()
                                         : before.is_null() ? std::string("(default)")
                                                            : before.dump()),
                  QString::fromStdString(value.is_string() ? value.get<std::string>()
                                                           : value.dump())),
         std::move(after), index, index);
    return true;
}

void LayerStackModel::replaceLayers(const nlohmann::json& newLayers, const QString& what) {
    push(what, newLayers.is_array() ? newLayers : nlohmann::json::array(), -1,
         newLayers.empty() ? -1 : 0);
}

void LayerStackModel::push(const QString& text, nlohmann::json after, int selectBefore,
                           int selectAfter) {
    doc_->undoStack()->push(
        new ModelEditCommand(doc_, text, layers(), selectBefore, std::move(after), selectAfter));
}

void LayerStackModel::reanalyze() {
    const DataShape shape = dataShapeOf(doc_->experiment().data);
    if (!shape.ok) {
        analysis_ = StackAnalysis{};
        analysis_.layers.resize(layers().size());
        analysis_.error = "data: " + shape.error;
        return;
    }
    analysis_ = analyzeStack(layers(), shape.input, shape.targets);
}

}  // namespace nnwb
