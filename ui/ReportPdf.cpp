#include "ui/ReportPdf.h"

#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>

#include "ui/ReportSvg.h"

namespace nnwb {

namespace {

// Charts are drawn at twice their size, sharp when the PDF is zoomed or printed.
constexpr qreal kChartScale = 2;

}  // namespace

std::unique_ptr<QTextDocument> reportDocument(const QString& html, QString* error) {
    auto doc = std::make_unique<QTextDocument>();
    QString page;
    page.reserve(html.size());
    qsizetype from = 0;
    for (int k = 0;; ++k) {
        const qsizetype open = html.indexOf(QLatin1String("<svg"), from);
        if (open < 0) break;
        const qsizetype close = html.indexOf(QLatin1String("</svg>"), open);
        if (close < 0) {
            if (error) *error = QStringLiteral("chart %1: an <svg> without its end").arg(k + 1);
            return nullptr;
        }
        const qsizetype end = close + 6;
        QString why;
        const QImage image = renderReportSvg(html.mid(open, end - open), kChartScale, &why);
        if (image.isNull()) {
            if (error) *error = QStringLiteral("chart %1: %2").arg(k + 1).arg(why);
            return nullptr;
        }
        const QString name = QStringLiteral("nnwb-chart-%1.png").arg(k + 1);
        doc->addResource(QTextDocument::ImageResource, QUrl(name), image);
        page += html.mid(from, open - from);
        page += QStringLiteral("<img src=\"%1\" width=\"%2\" height=\"%3\">")
                    .arg(name)
                    .arg(qRound(image.width() / kChartScale))
                    .arg(qRound(image.height() / kChartScale));
        from = end;
    }
    page += html.mid(from);
    doc->setHtml(page);
    return doc;
}

QByteArray reportPdf(const QString& html, const QString& title, QString* error) {
    const std::unique_ptr<QTextDocument> doc = reportDocument(html, error);
    if (!doc) return {};
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter pdf(&buffer);
        pdf.setTitle(title);
        pdf.setCreator(QStringLiteral("nnwb"));
        // The page's px (fonts, the 960 px charts) as a screen's 96 dpi: at the writer's
        // default 1200 dpi they were a twelfth of their size.
        pdf.setResolution(96);
        // Landscape A4 holds the 960 px charts at the document's 96 dpi without scaling.
        pdf.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape,
                                      QMarginsF(10, 10, 10, 10), QPageLayout::Millimeter));
        doc->print(&pdf);
    }
    if (!bytes.startsWith("%PDF")) {
        if (error) *error = QStringLiteral("the PDF could not be made");
        return {};
    }
    return bytes;
}

}  // namespace nnwb
