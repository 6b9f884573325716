#include "ui/ReportPdf.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QGuiApplication>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QScreen>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QUrl>

#include "ui/ReportSvg.h"

namespace nnwb {

namespace {

// Charts are drawn at twice their size, sharp when the PDF is zoomed or printed.
constexpr qreal kChartScale = 2;

// How many blocks after a heading (a paragraph, a chart's block, a table's first cells) must
// start on the heading's page.
constexpr int kKeepWithHeading = 4;

// The margins QTextDocument::print gives the page: 2 cm at the screen's dpi.
QMargins printMargins() {
    const QScreen* screen = QGuiApplication::primaryScreen();
    const int x = int((2 / 2.54) * (screen ? screen->logicalDotsPerInchX() : 100));
    const int y = int((2 / 2.54) * (screen ? screen->logicalDotsPerInchY() : 100));
    return {x, y, x, y};
}

// `doc` as QTextDocument::print lays it out on `device` (a copy of it, on the device's page,
// with printMargins), without printing.
std::unique_ptr<QTextDocument> printLayout(const QTextDocument& doc, QPagedPaintDevice* device) {
    std::unique_ptr<QTextDocument> copy(doc.clone());
    copy->documentLayout()->setPaintDevice(device);
    const QMargins m = printMargins();
    QTextFrameFormat fmt = copy->rootFrame()->frameFormat();
    fmt.setLeftMargin(m.left());
    fmt.setRightMargin(m.right());
    fmt.setTopMargin(m.top());
    fmt.setBottomMargin(m.bottom());
    copy->rootFrame()->setFrameFormat(fmt);
    copy->setPageSize(QSizeF(device->width(), device->height()));
    return copy;
}

}  // namespace

int keepHeadingsWithNext(QTextDocument* doc, QPagedPaintDevice* device) {
    int moved = 0;
    for (bool again = true; again;) {  // each move shifts what follows: lay out again
        again = false;
        const std::unique_ptr<QTextDocument> laid = printLayout(*doc, device);
        const qreal pageHeight = laid->pageSize().height();
        QAbstractTextDocumentLayout* layout = laid->documentLayout();
        const auto pageOf = [&](const QTextBlock& b) {
            return int(layout->blockBoundingRect(b).top() / pageHeight);
        };
        for (QTextBlock b = laid->begin(); b.isValid() && !again; b = b.next()) {
            if (b.blockFormat().headingLevel() == 0 ||
                b.blockFormat().pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore)
                continue;
            const int page = pageOf(b);
            QTextBlock next = b.next();
            for (int k = 0; k < kKeepWithHeading && next.isValid(); ++k, next = next.next()) {
                if (next.blockFormat().headingLevel() > 0) break;  // the next section
                if (pageOf(next) == page) continue;
                QTextBlock own = doc->findBlockByNumber(b.blockNumber());
                QTextBlockFormat f = own.blockFormat();
                f.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
                QTextCursor(own).setBlockFormat(f);
                ++moved;
                again = true;
                break;
            }
        }
    }
    return moved;
}

std::unique_ptr<QTextDocument> reportDocument(const QString& html, QString* error,
                                              int maxChartWidth) {
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
        // A block of its own: after a heading the image was a line of the heading's block,
        // which a page's end could split from it.
        // At most `maxChartWidth` wide, its proportions kept: the 960 px charts ran past the
        // printable width of the page (their right end cut off).
        const qreal width = image.width() / kChartScale;
        const qreal shrink = maxChartWidth > 0 && width > maxChartWidth ? maxChartWidth / width : 1;
        page += QStringLiteral("<div><img src=\"%1\" width=\"%2\" height=\"%3\"></div>")
                    .arg(name)
                    .arg(qRound(width * shrink))
                    .arg(qRound(image.height() / kChartScale * shrink));
        from = end;
    }
    page += html.mid(from);
    doc->setHtml(page);
    return doc;
}

QByteArray reportPdf(const QString& html, const QString& title, QString* error) {
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
        // The charts fit the width print() lays the page out in (less its 2 cm margins).
        const std::unique_ptr<QTextDocument> doc =
            reportDocument(html, error, pdf.width() - 2 * printMargins().left());
        if (!doc) return {};
        keepHeadingsWithNext(doc.get(), &pdf);
        doc->print(&pdf);
    }
    if (!bytes.startsWith("%PDF")) {
        if (error) *error = QStringLiteral("the PDF could not be made");
        return {};
    }
    return bytes;
}

}  // namespace nnwb
