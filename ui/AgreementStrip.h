// The strip under the price chart's candles that shows an ensemble's agreement per bar
// (docs/ensembles.md): the share of members voting for the ensemble's signal, 0 to 1, as
// bars on a fixed 0..1 axis, following the price chart's visible range. Hidden while there
// is no agreement to show (one model's signals always agree). GUI thread only.
#pragma once

#include <cstddef>
#include <vector>

#include "ui/Plot.h"

namespace nnwb {

class AgreementStrip : public QCustomPlot {
    Q_OBJECT
public:
    explicit AgreementStrip(QWidget* parent = nullptr);
    // Agreement of bars firstBar, firstBar + 1, ...; empty hides the strip.
    void setAgreement(size_t firstBar, std::vector<float> agreement);
    void clear() { setAgreement(0, {}); }
    const std::vector<float>& agreement() const { return agreement_; }
    size_t firstBar() const { return first_; }
    // The share of the shown bars whose agreement is below `share` (the tooltip's figure).
    double belowShare(float share) const;
    // Follows the price chart's visible bar range.
    void followRange(const QCPRange& range);

private:
    QCPBars* bars_;
    std::vector<float> agreement_;
    size_t first_ = 0;
};

}  // namespace nnwb
