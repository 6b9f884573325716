// Shortening a one-line message at whole clauses, never inside a figure: "Finished:
// walk-forward, 3 folds; out of sample: loss 0.25757, accuracy 18.46 % (260 signals), missed
// 76.81 %" keeps its leading clauses that fit and ends in "…" (cut by pixels it read "…6 %
// (260 signals)"). Clauses end after ", ", "; ", ": " or " · ". GUI thread (QFontMetrics).
#pragma once

#include <QString>

class QFontMetrics;

namespace nnwb {

// `text` in at most `room` px: whole, else its leading whole clauses (each with its separator)
// followed by "…", or "…" alone when not even the first clause fits.
QString leadingClauses(const QString& text, const QFontMetrics& fm, int room);

// The length of `text`'s first clause, its separator excluded (`text`'s length when it has one
// clause).
qsizetype firstClauseLength(const QString& text);

}  // namespace nnwb
