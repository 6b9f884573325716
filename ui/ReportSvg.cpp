#include "ui/ReportSvg.h"

#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QXmlStreamReader>

namespace nnwb {

namespace {

// The attributes an element draws with; a child inherits its <svg>'s font.
struct SvgStyle {
    QString family = QStringLiteral("sans-serif");
    qreal fontSize = 11;
};

qreal number(const QXmlStreamAttributes& a, const char* name, qreal fallback = 0) {
    const QStringView v = a.value(QLatin1String(name));
    if (v.isEmpty()) return fallback;
    bool ok = false;
    const qreal x = v.toDouble(&ok);
    return ok ? x : fallback;
}

// `color` ("#1f77b4", a name, "none") with `opacity`; an invalid color for none.
QColor paint(QStringView color, qreal opacity) {
    if (color.isEmpty() || color == QLatin1String("none")) return QColor();
    QColor c = QColor::fromString(color);
    if (c.isValid()) c.setAlphaF(float(c.alphaF() * opacity));
    return c;
}

QPen strokeOf(const QXmlStreamAttributes& a) {
    const QColor c = paint(a.value(QLatin1String("stroke")), number(a, "stroke-opacity", 1));
    if (!c.isValid()) return Qt::NoPen;
    QPen pen(c, number(a, "stroke-width", 1));
    pen.setCapStyle(Qt::FlatCap);
    const QStringList dashes =
        a.value(QLatin1String("stroke-dasharray"))
            .toString()
            .split(QRegularExpression(QStringLiteral("[ ,]+")), Qt::SkipEmptyParts);
    if (!dashes.isEmpty()) {
        QList<qreal> pattern;  // in pen widths
        for (const QString& d : dashes) pattern << d.toDouble() / pen.widthF();
        if (pattern.size() % 2) pattern += pattern;
        pen.setDashPattern(pattern);
    }
    return pen;
}

QBrush fillOf(const QXmlStreamAttributes& a, QStringView fallback) {
    const QStringView f =
        a.hasAttribute(QLatin1String("fill")) ? a.value(QLatin1String("fill")) : fallback;
    const QColor c = paint(f, number(a, "fill-opacity", 1));
    return c.isValid() ? QBrush(c) : QBrush(Qt::NoBrush);
}

// A path of absolute M, L and Z commands ("M70.0 28.0 L80.5 30.1 Z").
bool readPath(QStringView d, QPainterPath* path) {
    const QStringList parts = d.toString().split(
        QRegularExpression(QStringLiteral("(?=[MLZ])|[ ,]+")), Qt::SkipEmptyParts);
    QChar command;
    QList<qreal> args;
    auto flush = [&]() -> bool {
        if (command == QLatin1Char('Z')) {
            path->closeSubpath();
            return args.isEmpty();
        }
        if (args.size() != 2) return false;
        if (command == QLatin1Char('M'))
            path->moveTo(args[0], args[1]);
        else
            path->lineTo(args[0], args[1]);
        args.clear();
        return true;
    };
    for (const QString& p : parts) {
        QString token = p;
        if (token.front().isLetter()) {
            if (!command.isNull() && !flush()) return false;
            command = token.front();
            if (command != QLatin1Char('M') && command != QLatin1Char('L') &&
                command != QLatin1Char('Z'))
                return false;
            token = token.mid(1);
            if (token.isEmpty()) continue;
        }
        bool ok = false;
        args << token.toDouble(&ok);
        if (!ok || command.isNull()) return false;
    }
    return command.isNull() || flush();
}

void drawText(QPainter& p, const QXmlStreamAttributes& a, const SvgStyle& style,
              const QString& text) {
    QFont font(style.family);
    font.setPixelSize(qMax(1, qRound(number(a, "font-size", style.fontSize))));
    font.setBold(a.value(QLatin1String("font-weight")) == QLatin1String("bold"));
    p.setFont(font);
    const QColor c = paint(a.hasAttribute(QLatin1String("fill")) ? a.value(QLatin1String("fill"))
                                                                 : QStringView(u"#000"),
                           1);
    p.setPen(c.isValid() ? c : QColor(Qt::black));
    const QFontMetricsF m(font);
    qreal x = number(a, "x"), y = number(a, "y");
    const QStringView anchor = a.value(QLatin1String("text-anchor"));
    if (anchor == QLatin1String("middle")) x -= m.horizontalAdvance(text) / 2;
    if (anchor == QLatin1String("end")) x -= m.horizontalAdvance(text);
    if (a.value(QLatin1String("dominant-baseline")) == QLatin1String("middle"))
        y += (m.ascent() - m.descent()) / 2;
    p.drawText(QPointF(x, y), text);
}

// Draws one child element of <svg>; false for an element it does not know.
bool drawElement(QPainter& p, QXmlStreamReader& xml, const SvgStyle& style) {
    const QXmlStreamAttributes a = xml.attributes();
    const QStringView name = xml.name();
    if (name == QLatin1String("line")) {
        p.setPen(strokeOf(a));
        p.drawLine(QPointF(number(a, "x1"), number(a, "y1")),
                   QPointF(number(a, "x2"), number(a, "y2")));
    } else if (name == QLatin1String("rect")) {
        p.setPen(strokeOf(a));
        p.setBrush(fillOf(a, u"#000"));
        p.drawRect(QRectF(number(a, "x"), number(a, "y"), number(a, "width"), number(a, "height")));
    } else if (name == QLatin1String("path")) {
        QPainterPath path;
        if (!readPath(a.value(QLatin1String("d")), &path)) {
            xml.raiseError(QStringLiteral("a path whose d is not M, L and Z"));
            return false;
        }
        p.setPen(strokeOf(a));
        p.setBrush(fillOf(a, u"#000"));
        p.drawPath(path);
    } else if (name == QLatin1String("text")) {
        drawText(p, a, style, xml.readElementText());
        return true;  // readElementText consumed the end element
    } else {
        xml.raiseError(QStringLiteral("unexpected element %1").arg(name));
        return false;
    }
    xml.skipCurrentElement();
    return true;
}

}  // namespace

QImage renderReportSvg(const QString& svg, qreal scale, QString* error) {
    QXmlStreamReader xml(svg);
    if (!xml.readNextStartElement() || xml.name() != QLatin1String("svg")) {
        if (error) *error = QStringLiteral("not an <svg> element");
        return {};
    }
    const QXmlStreamAttributes top = xml.attributes();
    const qreal width = number(top, "width"), height = number(top, "height");
    if (width <= 0 || height <= 0 || width * scale > 8000 || height * scale > 8000) {
        if (error) *error = QStringLiteral("an <svg> without a width and height up to 8000 px");
        return {};
    }
    SvgStyle style;
    if (top.hasAttribute(QLatin1String("font-family")))
        style.family = top.value(QLatin1String("font-family")).toString();
    style.fontSize = number(top, "font-size", style.fontSize);
    QImage image(qCeil(width * scale), qCeil(height * scale), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.scale(scale, scale);
    while (xml.readNextStartElement())
        if (!drawElement(p, xml, style)) break;
    if (xml.hasError()) {
        if (error)
            *error = QStringLiteral("line %1: %2").arg(xml.lineNumber()).arg(xml.errorString());
        return {};
    }
    return image;
}

}  // namespace nnwb
