// What the Sweeps tab's form holds and the spec JSON it writes (the same spec `nnwb-cli sweep
// run` takes, docs/sweeps.md; model/sweep/SweepSpec loads and checks it), and the fields of an
// experiment a sweep may search (training and data settings, layer fields by path). Pure
// functions of plain values; any thread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnwb {

// A field of an experiment as saved: its path in spec syntax ("training.batchSize",
// "model.layers[1].heads") and its current value.
struct SweepField {
    std::string path;
    nlohmann::json value;
};

// The scalar fields of `experiment` (Experiment::toJson) a sweep can set: numbers, strings and
// booleans under training, data (not the data file or source) and each layer of the model.
std::vector<SweepField> sweepableFields(const nlohmann::json& experiment);

struct SweepDraftParam {
    std::string path;
    bool range = true;  // min/max (else the comma-separated `values`)
    double min = 0.0, max = 1.0;
    bool integer = false;  // an int range
    bool log = false;      // a float range searched in log space
    std::string values;    // "2, 4, 8" or "adam, sgd": each a JSON value, else a string
};

struct SweepDraft {
    std::string name = "sweep";
    std::string experiment;  // a file (absolute) or a preset name
    std::string method = "random";
    std::string objective = "validation.loss";
    std::string goal = "min";
    std::string secondObjective;          // "" for none
    std::string earlyTerminate = "none";  // none, asha, median
    int runCap = 16;
    int epochs = 0;  // 0: the experiment's
    int seed = 1;
    int population = 1;  // trials packed per process (docs/sweeps.md "Packed trials")
    int ensemble = 1;    // members of every trial (docs/sweeps.md "Ensemble trials"); 1: none
    std::vector<SweepDraftParam> params;
};

// The form's proposal for `field`: a number gets a range around its value (a float above 0 a
// log range of 1/10..10 times it; an integer half..twice it) inside the setting's own range for
// training and data settings (training.lrSchedule.floor 0 -> 0..1, never -1..1 where the
// setting takes [0, 10]); anything else its value as the one value listed.
SweepDraftParam proposedParam(const SweepField& field);
// The objective a sweep of `experiment` starts with: oos.loss for a walk-forward experiment
// (its end-of-trial out-of-sample loss), else validation.loss.
std::string defaultObjective(const nlohmann::json& experiment);

// The spec JSON of `draft`, keys in the order docs/sweeps.md gives them (ordered_json: a person
// reads and edits it).
nlohmann::ordered_json specOfDraft(const SweepDraft& draft);
// `text` ("2, 4, 8") as JSON values: each item parsed as JSON, else taken as a string.
nlohmann::ordered_json draftValues(const std::string& text);

}  // namespace nnwb
