#include "ui/ClauseText.h"

#include <QFontMetrics>

namespace nnwb {

namespace {

const QString kSeparators[] = {QStringLiteral(", "), QStringLiteral("; "), QStringLiteral(": "),
                               QStringLiteral(" · ")};

// Where the first separator at or after `from` starts and its length ({-1, 0}: none).
std::pair<qsizetype, qsizetype> nextSeparator(const QString& text, qsizetype from) {
    std::pair<qsizetype, qsizetype> best{-1, 0};
    for (const QString& s : kSeparators) {
        const qsizetype at = text.indexOf(s, from);
        if (at >= 0 && (best.first < 0 || at < best.first)) best = {at, s.size()};
    }
    return best;
}

}  // namespace

qsizetype firstClauseLength(const QString& text) {
    const qsizetype at = nextSeparator(text, 0).first;
    return at < 0 ? text.size() : at;
}

QString leadingClauses(const QString& text, const QFontMetrics& fm, int room) {
    if (fm.horizontalAdvance(text) <= room) return text;
    const QString ellipsis(QChar(0x2026));
    QString kept = ellipsis;
    for (auto sep = nextSeparator(text, 0); sep.first >= 0;
         sep = nextSeparator(text, sep.first + sep.second)) {
        const QString longer = text.left(sep.first + sep.second) + ellipsis;
        if (fm.horizontalAdvance(longer) > room) break;
        kept = longer;
    }
    return kept;
}

}  // namespace nnwb
