// The PDF of a report page (File > Export Report as PDF): the same HTML the report writes
// (app/report/ReportPages.h, model/trading/HtmlReport.h) laid out by QTextDocument on landscape
// A4 pages and printed through QPdfWriter, each inline SVG chart drawn as an image first
// (ReportSvg.h; QTextDocument draws no SVG), no heading left alone at a page's foot. GUI thread.
#pragma once

#include <memory>

#include <QByteArray>
#include <QString>

class QPagedPaintDevice;
class QTextDocument;

namespace nnwb {

// The page as the PDF lays it out: its charts as image resources, each a block of its own and
// at most `maxChartWidth` px wide (0: as drawn); null with `error` set when a chart cannot be
// drawn.
std::unique_ptr<QTextDocument> reportDocument(const QString& html, QString* error,
                                              int maxChartWidth = 0);
// Starts a new page before each heading whose section the page's end would part it from (one of
// the next blocks: a chart, a table's first cells, on a later page), as QTextDocument::print
// lays `doc` out on `device`: a heading alone at a page's foot, its chart on the next page.
// Returns how many headings it moved.
int keepHeadingsWithNext(QTextDocument* doc, QPagedPaintDevice* device);
// The PDF file's bytes ("%PDF-…"); empty with `error` set on failure. `title`: the PDF's title.
QByteArray reportPdf(const QString& html, const QString& title, QString* error);

}  // namespace nnwb
