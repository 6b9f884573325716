// The Sweeps tab's form for the common case: pick fields of the current experiment (training
// and data settings, layer fields such as heads or blocks) and give each a range (from, to,
// log) or values ("2, 4, 8"), the method, objective, second objective, early termination, run
// cap, epochs, population and ensemble (with the loader's refusal of an ensemble that cannot
// run, model/sweep/SweepSpec.h ensembleProblem, under the fields); Write Spec turns it into the
// spec JSON (app/core/SweepSpecDraft) that the editor then holds and `nnwb-cli sweep run` would
// take. GUI thread only.
#pragma once

#include <vector>

#include <QWidget>

#include <nlohmann/json.hpp>

#include "app/core/SweepSpecDraft.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace nnwb {

class SweepSpecForm : public QWidget {
    Q_OBJECT
public:
    explicit SweepSpecForm(QWidget* parent = nullptr);

    // The experiment whose fields are offered (Experiment::toJson); `ref` is what the spec's
    // "experiment" names (its file, or a copy the presenter saved).
    void setExperiment(const nlohmann::json& experiment, const QString& ref);
    void setExperimentRef(const QString& ref) { ref_ = ref; }
    // Adds a row for field `path` with a range around its value inside the setting's own range
    // (proposedParam); false if unknown. A new experiment picks the objective (defaultObjective)
    // until the user has chosen one.
    bool addField(const QString& path);
    void removeSelected();
    // Sets row `row`'s range or (values non-empty) its values.
    void setRow(int row, const QString& from, const QString& to, bool log, const QString& values);
    SweepDraft draft() const;
    QString specText() const;  // specOfDraft(draft()), indented

    QComboBox* fieldPicker() const { return field_; }
    QComboBox* methodBox() const { return method_; }
    QComboBox* earlyBox() const { return early_; }
    QComboBox* secondBox() const { return second_; }
    QSpinBox* runCapBox() const { return runCap_; }
    QSpinBox* epochsBox() const { return epochs_; }
    QSpinBox* populationBox() const { return population_; }
    QSpinBox* ensembleBox() const { return ensemble_; }
    // Why the ensemble field's value cannot run ("ensemble: ..." as `nnwb-cli sweep run` says
    // it; "" when it can or is off), shown in red under the fields.
    QString ensembleProblem() const;
    QTableWidget* parameterTable() const { return table_; }

Q_SIGNALS:
    // Write Spec was clicked: the owner fills in the experiment's reference, then takes
    // specText().
    void writeRequested();

private:
    QWidget* createSettings();
    QWidget* createParameters();
    void updateProblem();

    std::vector<SweepField> fields_;
    QString ref_;
    QLineEdit* name_;
    QComboBox* field_;
    QTableWidget* table_;
    QComboBox* method_;
    QComboBox* objective_;
    bool objectivePicked_ = false;  // the user chose the objective: setExperiment keeps it
    QComboBox* goal_;
    QComboBox* second_;
    QComboBox* early_;
    QSpinBox* runCap_;
    QSpinBox* epochs_;
    QSpinBox* population_;
    QSpinBox* ensemble_;
    QLabel* problem_;
    bool walkForward_ = false;  // the experiment's validation is walk-forward (or cpcv)
    bool priceFile_ = true;     // the experiment reads a price file (data.source file)
};

}  // namespace nnwb
