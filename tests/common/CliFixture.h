// What the Qt Test classes that run nnwb-cli share: a scratch folder of their own (dir_, set by
// the test), nnwb-cli with the long timeout of a training run, files written there, a cut of the
// bundled bars, and nnwb-cli's JSON lines parsed. A second base class of a test class, after
// QObject (moc reads the first): `class T : public QObject, nnwb::test::CliFixture`. One copy
// here instead of one per test file. Test thread only.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>

#include "common/CliRun.h"
#include "common/DataCut.h"

namespace nnwb::test {

struct CliFixture {
    QString dir_;

    // nnwb-cli with `args`, waiting up to 5 minutes (it trains).
    static CliResult run(const QStringList& args) { return runCli(args, 300000); }
    // dir_/name.
    QString path(const QString& name) const { return dir_ + "/" + name; }
    // Writes `text` as dir_/name; returns its path.
    QString write(const QString& name, const std::string& text) const {
        const QString p = path(name);
        std::ofstream(p.toStdString()) << text;
        return p;
    }
    // The header and the first `bars` bars of the bundled data as dir_/name; returns its path.
    QString writeCut(const QString& name, int bars) const {
        return QString::fromStdString(writeDataCut(path(name).toStdString(), bars));
    }
    // Every line of `out` as JSON (a line that is not JSON throws: the test fails).
    static std::vector<nlohmann::json> jsonLines(const QString& out) {
        std::vector<nlohmann::json> v;
        for (const QString& l : out.trimmed().split('\n'))
            v.push_back(nlohmann::json::parse(l.toStdString()));
        return v;
    }
    // The lines of `out` that are JSON, in order (the others are passed over).
    static std::vector<nlohmann::json> parsedLines(const QString& out) {
        std::vector<nlohmann::json> v;
        for (const QString& l : out.trimmed().split('\n')) {
            const nlohmann::json j = nlohmann::json::parse(l.toStdString(), nullptr, false);
            if (!j.is_discarded()) v.push_back(j);
        }
        return v;
    }
};

}  // namespace nnwb::test
