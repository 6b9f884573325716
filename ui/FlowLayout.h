// A layout that places its items left to right and wraps them onto further lines when the
// width runs out (a toolbar of pickers that must not set a wide pane's minimum width: its
// minimum is its widest item). Height for width. GUI thread only.
#pragma once

#include <QLayout>
#include <QList>

namespace nnwb {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int spacing = 6);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override { return int(items_.size()); }
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    // Inserts a widget before position `index` (past the end: at the end).
    void insertWidget(int index, QWidget* widget);

    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

private:
    // Lays the items out in `rect` (or only measures, with `apply` false); the height used.
    int place(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> items_;
    int spacing_;
};

}  // namespace nnwb
