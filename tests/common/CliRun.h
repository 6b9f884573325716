// Runs the nnwb-cli binary under test (NNWB_CLI_PATH) with arguments and collects its exit
// status (-1 for a crash or a timeout) and both output streams. Test thread only.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#include "nnwb/TestPaths.h"

namespace nnwb::test {

struct CliResult {
    int code = -1;
    QString out, err;
};

inline CliResult runCli(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    p.start(NNWB_CLI_PATH, args);
    CliResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timeout");
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

}  // namespace nnwb::test
