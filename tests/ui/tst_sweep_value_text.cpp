// GUI: the Sweeps tab writes an objective value as sweep show does (sweepValueText of
// app/sweep/SweepReadModel.h, 6 significant digits; issue 42 §6): the trials table's value cell
// and the summary's best value. Before, the tab wrote 5 digits ("0.12346") where sweep show's
// leaderboard wrote 6 ("0.123457") and its best line 17.
#include <QtTest>

#include "app/core/SweepPresenter.h"
#include "app/sweep/SweepReadModel.h"
#include "ui/SweepTrialsTable.h"

using namespace nnwb;

class TestSweepValueText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theTrialsTableWritesTheValueAsSweepShow() {
        SweepSnapshot s;
        s.sweep.id = 1;
        s.objective = "validation.loss";
        for (int k = 1; k <= 2; ++k) {
            TrialRow t;
            t.number = k;
            t.state = sweep::TrialState::Complete;
            t.value = k == 1 ? 0.123456789 : -1234567.0;
            s.trials.push_back(t);
        }
        SweepTrialsTable table;
        table.setSnapshot(s);
        QCOMPARE(table.rowCount(), 2);
        QStringList values;
        for (int r = 0; r < table.rowCount(); ++r) values << table.item(r, 3)->text();
        values.sort();
        QCOMPARE(values, QStringList({QStringLiteral("-1.23457e+06"), QStringLiteral("0.123457")}));
        QCOMPARE(QString::fromStdString(sweepValueText(0.123456789)), QStringLiteral("0.123457"));
    }
};

QTEST_MAIN(TestSweepValueText)
#include "tst_sweep_value_text.moc"
