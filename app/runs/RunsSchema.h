// The run store's SQLite schema as an ordered list of migrations: migration i takes a database
// from schema version i to i + 1 (version 0 is an empty file), and the version is kept in the
// `schema_version` table. Opening a store runs the missing steps in one transaction; a file
// made by a newer nnwb is refused. Used by RunStore on whichever thread opens a connection.
#pragma once

#include <string>
#include <vector>

namespace SQLite {
class Database;
}

namespace nnwb {

// The SQL of every migration, in order (kRunsSchemaVersion entries).
const std::vector<std::string>& runsSchemaMigrations();
constexpr int kRunsSchemaVersion = 7;

// The schema version of an open database (0 when it has no schema_version table).
int runsSchemaVersion(SQLite::Database& db);
// Brings the database to `target` (default: the latest) in one IMMEDIATE transaction. Throws
// std::runtime_error when the file's version is newer than this program knows.
void migrateRunsSchema(SQLite::Database& db, int target = kRunsSchemaVersion);

}  // namespace nnwb
