#include "ui/ResultNotes.h"

#include <QLabel>
#include <QVBoxLayout>

namespace nnwb {

ResultNotes::ResultNotes(QWidget* parent, QVBoxLayout* layout) : QObject(parent) {
    banner_ = new QLabel(parent);
    banner_->setObjectName(QStringLiteral("errorBanner"));
    banner_->setWordWrap(true);
    banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    banner_->setStyleSheet(
        QStringLiteral("QLabel { color: #7a1010; background: #fde2e1; border: 1px solid #f0b4b0;"
                       " border-radius: 3px; padding: 6px; }"));
    banner_->hide();
    layout->addWidget(banner_);
    stale_ = new QLabel(parent);
    stale_->setObjectName(QStringLiteral("staleResultsNote"));
    stale_->setWordWrap(true);
    stale_->setStyleSheet(
        QStringLiteral("QLabel { color: #5c4400; background: #fff4d1; border: 1px solid #e8d08a;"
                       " border-radius: 3px; padding: 6px; }"));
    stale_->hide();
    layout->addWidget(stale_);
}

void ResultNotes::showError(const QString& title, const QString& message) {
    banner_->setText(
        QStringLiteral("<b>%1.</b> %2")
            .arg(title.toHtmlEscaped(),
                 message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    banner_->show();
}

void ResultNotes::hideError() {
    banner_->hide();
}

void ResultNotes::setStale(bool stale) {
    if (stale)
        stale_->setText(
            tr("These results come from the last run, which was made on other "
               "data or another layer stack than the experiment now shown. "
               "Train again for results of this experiment."));
    stale_->setVisible(stale);
}

}  // namespace nnwb
