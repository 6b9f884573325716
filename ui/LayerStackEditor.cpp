#include "ui/LayerStackEditor.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/core/LayerStackModel.h"
#include "app/core/QtText.h"
#include "model/FigureText.h"
#include "model/layers/LayerRegistry.h"
#include "ui/LayerParamForm.h"

namespace nnwb {

namespace {
// "conv · window 6, step 6, filters 8, tanh": the non-type parameters in spec order.
QString summary(const nlohmann::json& layer) {
    QStringList parts;
    const auto* info = findLayerType(layer.value("type", std::string()));
    if (!info) return {};
    for (const auto& spec : info->params) {
        if (!layer.contains(spec.key)) continue;
        const auto& v = layer[spec.key];
        if (v.is_string())
            parts << q(v.get<std::string>());
        else if (v.is_boolean())
            parts << (v.get<bool>() ? q(spec.label) : QString());
        else
            parts << q(spec.label).toLower() + QLatin1Char(' ') + q(v.dump());
    }
    parts.removeAll(QString());
    return parts.join(QStringLiteral(", "));
}
}  // namespace

LayerStackEditor::LayerStackEditor(LayerStackModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    layout->addLayout(createButtons());

    auto* split = new QSplitter(Qt::Vertical, this);
    table_ = new QTreeWidget(split);
    table_->setObjectName(QStringLiteral("layerTable"));
    table_->setRootIsDecorated(false);
    table_->setUniformRowHeights(true);
    table_->setAlternatingRowColors(true);
    table_->setHeaderLabels({tr("#"), tr("Layer"), tr("Output"), tr("Params")});
    table_->header()->setStretchLastSection(false);
    table_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table_->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    table_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    table_->header()->setSectionResizeMode(3, QHeaderView::ResizeToContents);
    table_->headerItem()->setTextAlignment(3, Qt::AlignRight | Qt::AlignVCenter);

    auto* lower = new QWidget(split);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 4, 0, 0);
    status_ = new QLabel(lower);
    status_->setObjectName(QStringLiteral("stackStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form_ = new LayerParamForm(lower);
    lowerLayout->addWidget(status_);
    lowerLayout->addWidget(form_, 1);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(table_, &QTreeWidget::currentItemChanged, this, [this] {
        const int i = currentLayer();
        form_->setLayer(i, i >= 0 ? model_->layers()[i] : nlohmann::json());
        updateButtons();
    });
    connect(form_, &LayerParamForm::parameterEdited, this,
            [this](int index, const std::string& key, const nlohmann::json& value) {
                model_->setParameter(index, key, value);
            });
    connect(model_, &LayerStackModel::changed, this, &LayerStackEditor::refresh);
    refresh(model_->count() > 0 ? 0 : -1);
}

QHBoxLayout* LayerStackEditor::createButtons() {
    auto* buttons = new QHBoxLayout;
    buttons->setSpacing(2);
    addButton_ = toolButton(tr("Add layer"), tr("Add a layer after the selected one"), "addLayer");
    addButton_->setPopupMode(QToolButton::InstantPopup);
    addButton_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    addButton_->setIcon(style()->standardIcon(QStyle::SP_FileDialogNewFolder));
    palette_ = new QMenu(this);
    for (const auto& t : layerTypes()) {
        QAction* a = palette_->addAction(q(t.label));
        a->setObjectName(q("add:" + t.type));
        a->setToolTip(q(t.description));
        a->setStatusTip(q(t.description));
        const QString type = q(t.type);
        connect(a, &QAction::triggered, this, [this, type] { addLayer(type); });
    }
    palette_->setToolTipsVisible(true);
    addButton_->setMenu(palette_);
    removeButton_ = toolButton(tr("Remove"), tr("Remove the selected layer (Del)"), "removeLayer");
    upButton_ = toolButton(tr("Up"), tr("Move the selected layer up (Alt+Up)"), "moveUp");
    downButton_ = toolButton(tr("Down"), tr("Move the selected layer down (Alt+Down)"), "moveDown");
    duplicateButton_ =
        toolButton(tr("Duplicate"), tr("Duplicate the selected layer (Ctrl+D)"), "duplicateLayer");
    removeButton_->setShortcut(QKeySequence::Delete);
    upButton_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    downButton_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    duplicateButton_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(removeButton_, &QToolButton::clicked, this, &LayerStackEditor::removeCurrent);
    connect(upButton_, &QToolButton::clicked, this, &LayerStackEditor::moveCurrentUp);
    connect(downButton_, &QToolButton::clicked, this, &LayerStackEditor::moveCurrentDown);
    connect(duplicateButton_, &QToolButton::clicked, this, &LayerStackEditor::duplicateCurrent);
    buttons->addWidget(addButton_);
    buttons->addStretch(1);
    for (QToolButton* b : {upButton_, downButton_, duplicateButton_, removeButton_})
        buttons->addWidget(b);
    return buttons;
}

QToolButton* LayerStackEditor::toolButton(const QString& text, const QString& tip,
                                          const char* name) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setObjectName(QLatin1String(name));
    b->setAutoRaise(false);
    return b;
}

int LayerStackEditor::currentLayer() const {
    const QTreeWidgetItem* item = table_->currentItem();
    return item ? table_->indexOfTopLevelItem(const_cast<QTreeWidgetItem*>(item)) : -1;
}

void LayerStackEditor::setCurrentLayer(int index) {
    if (index >= 0 && index < table_->topLevelItemCount())
        table_->setCurrentItem(table_->topLevelItem(index));
}

void LayerStackEditor::addLayer(const QString& type) {
    const int at = currentLayer() >= 0 ? currentLayer() + 1 : -1;
    model_->addLayer(type.toStdString(), at);
}

void LayerStackEditor::removeCurrent() {
    model_->removeLayer(currentLayer());
}
void LayerStackEditor::moveCurrentUp() {
    model_->moveLayer(currentLayer(), -1);
}
void LayerStackEditor::moveCurrentDown() {
    model_->moveLayer(currentLayer(), +1);
}
void LayerStackEditor::duplicateCurrent() {
    model_->duplicateLayer(currentLayer());
}

void LayerStackEditor::refresh(int selection) {
    if (selection < 0) selection = currentLayer();
    const auto& layers = model_->layers();
    const StackAnalysis& a = model_->analysis();
    {
        const QSignalBlocker block(table_);
        table_->clear();
        for (size_t i = 0; i < layers.size(); ++i) {
            const auto& layer = layers[i];
            auto* item = new QTreeWidgetItem(table_);
            const QString type = q(layer.value("type", std::string("?")));
            item->setText(0, QString::number(i + 1));
            item->setText(1, LayerStackModel::typeLabel(type.toStdString()) + QStringLiteral("  ") +
                                 summary(layer));
            const bool known = i < a.layers.size() && a.layers[i].ok;
            item->setText(2, known ? q(a.layers[i].output.str()) : QStringLiteral("–"));
            item->setText(
                3, known ? QString::fromStdString(groupedCount(int64_t(a.layers[i].parameters)))
                         : QStringLiteral("–"));
            item->setTextAlignment(3, Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(1, q(layer.dump(1)));
            if (static_cast<int>(i) == a.errorLayer) {
                for (int c = 0; c < 4; ++c) {
                    item->setBackground(c, QColor(0xfd, 0xe2, 0xe1));
                    item->setForeground(c, QColor(0x9b, 0x1c, 0x1c));
                    item->setToolTip(c, q(a.error));
                }
                item->setIcon(0, style()->standardIcon(QStyle::SP_MessageBoxWarning));
            }
        }
    }
    const int n = static_cast<int>(layers.size());
    if (n > 0) setCurrentLayer(std::clamp(selection, 0, n - 1));
    const int cur = currentLayer();
    form_->setLayer(cur, cur >= 0 ? layers[cur] : nlohmann::json());

    if (a.valid) {
        status_->setText(
            tr("Input %1 → output %2 · %3 parameters")
                .arg(q(a.input.str()))
                .arg(q(a.layers.back().output.str()))
                .arg(QString::fromStdString(groupedCount(int64_t(a.totalParameters)))));
        status_->setStyleSheet(QStringLiteral("color: #1e6b34;"));
    } else {
        status_->setText(q(a.error));
        status_->setStyleSheet(QStringLiteral("color: #9b1c1c;"));
    }
    updateButtons();
}

void LayerStackEditor::updateButtons() {
    const int i = currentLayer();
    const int n = model_->count();
    removeButton_->setEnabled(i >= 0);
    duplicateButton_->setEnabled(i >= 0);
    upButton_->setEnabled(i > 0);
    downButton_->setEnabled(i >= 0 && i + 1 < n);
}

}  // namespace nnwb
