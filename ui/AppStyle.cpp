#include "ui/AppStyle.h"

#include <QApplication>
#include <QProxyStyle>
#include <QStyleFactory>
#include <QStyleOptionHeader>

namespace nnwb {

namespace {

// Draws a header's sort arrow ▼ for descending (largest at the top) and ▲ for ascending.
class SortOrderArrowStyle : public QProxyStyle {
public:
    explicit SortOrderArrowStyle(QStyle* base) : QProxyStyle(base) {
        setObjectName(QStringLiteral("nnwb-fusion"));
    }
    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget) const override {
        const auto* header = qstyleoption_cast<const QStyleOptionHeader*>(option);
        if (element == PE_IndicatorHeaderArrow && header &&
            header->sortIndicator != QStyleOptionHeader::None) {
            QStyleOptionHeader flipped(*header);
            flipped.sortIndicator = header->sortIndicator == QStyleOptionHeader::SortUp
                                        ? QStyleOptionHeader::SortDown
                                        : QStyleOptionHeader::SortUp;
            QProxyStyle::drawPrimitive(element, &flipped, painter, widget);
            return;
        }
        QProxyStyle::drawPrimitive(element, option, painter, widget);
    }
};

}  // namespace

void applyAppStyle() {
    if (QApplication::style() &&
        QApplication::style()->objectName() == QStringLiteral("nnwb-fusion"))
        return;
    QApplication::setStyle(
        new SortOrderArrowStyle(QStyleFactory::create(QStringLiteral("Fusion"))));
}

}  // namespace nnwb
