#include "app/runs/RunsSchema.h"

#include <stdexcept>

#include <SQLiteCpp/SQLiteCpp.h>

namespace nnwb {

const std::vector<std::string>& runsSchemaMigrations() {
    static const std::vector<std::string> steps = {
        // 1: runs and their epochs.
        R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version (version) VALUES (0);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL,            -- cli-train, cli-compare, window, window-compare
    comparison TEXT,                 -- runs of one comparison share this id
    experiment TEXT NOT NULL,        -- the whole experiment JSON as trained
    experiment_file TEXT,            -- where it was opened from, if anywhere
    data_file TEXT, data_size INTEGER, data_sha256 TEXT,
    data_bars INTEGER, data_first_bar TEXT, data_last_bar TEXT, data_description TEXT,
    device_id TEXT, device_name TEXT,
    seed INTEGER, app_version TEXT,
    parameters INTEGER, train_samples INTEGER, validation_samples INTEGER,
    epochs_planned INTEGER,
    started_at TEXT NOT NULL,        -- UTC, YYYY-MM-DDTHH:MM:SSZ
    ended_at TEXT,
    status TEXT NOT NULL,            -- running, completed, stopped, stopped_early, failed, interrupted
    error TEXT,
    host TEXT, pid INTEGER, pid_start INTEGER,  -- the process that owns a running run
    heartbeat_at REAL                -- UTC seconds, renewed while the run goes
);
CREATE INDEX runs_started ON runs (started_at);
CREATE INDEX runs_status ON runs (status);
CREATE TABLE epochs (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    epoch INTEGER NOT NULL,
    seconds REAL, samples_per_second REAL, task_metrics INTEGER NOT NULL,
    train_samples INTEGER, train_loss REAL, train_accuracy REAL, train_missed REAL,
    train_signals INTEGER, train_patterns INTEGER, train_confusion TEXT,
    val_samples INTEGER, val_loss REAL, val_accuracy REAL, val_missed REAL,
    val_signals INTEGER, val_patterns INTEGER, val_confusion TEXT,
    PRIMARY KEY (run_id, epoch)
);
)sql",
        // 2: best epoch, learning rate per epoch, model bundles (best and last) as files
        // beside the database.
        R"sql(
ALTER TABLE runs ADD COLUMN best_epoch INTEGER;
ALTER TABLE runs ADD COLUMN monitor TEXT;
ALTER TABLE epochs ADD COLUMN learning_rate REAL;
CREATE TABLE bundles (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,              -- best, last
    path TEXT NOT NULL,              -- relative to the database's folder
    sha256 TEXT NOT NULL, size INTEGER NOT NULL, epoch INTEGER,
    PRIMARY KEY (run_id, kind)
);
)sql",
        // 3: a uuid per run, which names it in a side file kept while the store could not be
        // written (issue 24), so importing the file twice changes nothing.
        R"sql(
ALTER TABLE runs ADD COLUMN uuid TEXT;
CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
)sql",
        // 4: the trading figures of the run's validation part (issue 30), as JSON.
        R"sql(
ALTER TABLE runs ADD COLUMN trading TEXT;
)sql",
        // 5: sweeps (issue 27) and their trials; a trial's attempt that trained is a run
        // (run_id). Only the sweep's coordinator writes them (docs/sweeps.md).
        R"sql(
CREATE TABLE sweeps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    spec TEXT NOT NULL,              -- the spec JSON as given
    spec_file TEXT,                  -- where it was read from (absolute)
    status TEXT NOT NULL,            -- running, stopping, stopped, completed, interrupted
    created_at TEXT NOT NULL,
    ended_at TEXT,
    host TEXT, pid INTEGER, pid_start INTEGER,  -- the coordinator while it runs
    heartbeat_at REAL
);
CREATE TABLE trials (
    sweep_id INTEGER NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
    number INTEGER NOT NULL,         -- 0-based, in the order asked
    config INTEGER NOT NULL,         -- the configuration (seed replicates share it)
    replicate INTEGER NOT NULL,      -- 0-based seed replicate
    state TEXT NOT NULL,             -- queued, running, complete, pruned, failed
    params TEXT NOT NULL,            -- the configuration, JSON {path: value}
    run_id INTEGER REFERENCES runs (id) ON DELETE SET NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    slot TEXT,                       -- the device of the last attempt
    value REAL,                      -- the objective of the last epoch reported
    second_value REAL,               -- the second objective, if any
    epochs_done INTEGER NOT NULL DEFAULT 0,
    pruned_at INTEGER,               -- the epoch after which it was pruned
    error TEXT,
    started_at TEXT, ended_at TEXT,
    PRIMARY KEY (sweep_id, number)
);
CREATE TABLE trial_epochs (
    sweep_id INTEGER NOT NULL,
    number INTEGER NOT NULL,
    epoch INTEGER NOT NULL,
    value REAL NOT NULL,             -- the objective at this epoch, as reported
    PRIMARY KEY (sweep_id, number, epoch),
    FOREIGN KEY (sweep_id, number) REFERENCES trials (sweep_id, number) ON DELETE CASCADE
);
)sql",
        // 6: the per-bar returns of the run's trading evaluation (issue 45, app/runs/
        // RunReturns.h), for the overfitting diagnostics of a sweep's trials.
        R"sql(
CREATE TABLE run_returns (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    bars INTEGER NOT NULL,           -- how many returns
    time BLOB NOT NULL,              -- int64 UTC seconds per return, little-endian
    pct BLOB NOT NULL                -- float64 return per bar (% equity difference), little-endian
);
)sql",
        // 7: an ensemble recorded as one run (issue 44, docs/ensembles.md): its members' runs
        // name it; RunStore::list() leaves them out, RunStore::members() reads them.
        R"sql(
ALTER TABLE runs ADD COLUMN ensemble_run INTEGER;
CREATE INDEX runs_ensemble ON runs (ensemble_run);
)sql",
    };
    return steps;
}

int runsSchemaVersion(SQLite::Database& db) {
    if (!db.tableExists("schema_version")) return 0;
    SQLite::Statement q(db, "SELECT version FROM schema_version");
    if (!q.executeStep()) throw std::runtime_error("the schema_version table is empty");
    return q.getColumn(0).getInt();
}

void migrateRunsSchema(SQLite::Database& db, int target) {
    const auto& steps = runsSchemaMigrations();
    if (target < 0 || target > int(steps.size()))
        throw std::invalid_argument("no schema version " + std::to_string(target));
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    const int have = runsSchemaVersion(db);  // read under the write lock: one process migrates
    if (have > kRunsSchemaVersion)
        throw std::runtime_error("it was made by a newer nnwb (schema version " +
                                 std::to_string(have) + "; this one knows up to " +
                                 std::to_string(kRunsSchemaVersion) + ")");
    if (have >= target) return;  // the transaction rolls back: nothing was written
    for (int v = have; v < target; ++v) db.exec(steps[size_t(v)]);
    db.exec("UPDATE schema_version SET version = " + std::to_string(target));
    tx.commit();
}

}  // namespace nnwb
