// A one-line label that, narrower than its text, shows the text's leading whole clauses and
// "…" (ClauseText.h), never part of a figure, with the whole text as its tooltip; clipped,
// the status bar's "Finished: walk-forward, …, accuracy 18.4" read as a wrong figure. Its size
// hint is the whole text's. GUI thread only.
#pragma once

#include <QLabel>

namespace nnwb {

class ClauseLabel : public QLabel {
    Q_OBJECT
public:
    explicit ClauseLabel(const QString& text = {}, QWidget* parent = nullptr);

    // The whole text, shown as far as the label's width allows (whole while hidden).
    void setWhole(const QString& text);
    const QString& whole() const { return whole_; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void fit();

    QString whole_;
};

}  // namespace nnwb
