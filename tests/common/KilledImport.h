// A sweep import killed inside its transaction, as the bundle and Slurm tests do it to show that
// the store is left as it was. A Qt Test helper: its checks fail the calling test function
// (which returns when QTest::currentTestFailed()). One copy here instead of one per test file.
// Test thread only.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QTest>

#include <signal.h>

#include "nnwb/TestPaths.h"

namespace nnwb::test {

// Starts `nnwb-cli sweep import BUNDLE --runs-db DB` stalled inside its transaction
// (NNWB_TEST_IMPORT_STALL_S=60: it stalls after the first trial), checks that it still runs 3 s
// later and kills it (SIGKILL).
inline void killImportInItsTransaction(const QString& bundle, const QString& db) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NNWB_TEST_IMPORT_STALL_S", "60");
    p.setProcessEnvironment(env);
    p.start(NNWB_CLI_PATH, {"sweep", "import", bundle, "--runs-db", db});
    QVERIFY(p.waitForStarted());
    QTest::qWait(3000);  // inside its transaction by now
    QCOMPARE(p.state(), QProcess::Running);
    ::kill(pid_t(p.processId()), SIGKILL);
    p.waitForFinished();
}

}  // namespace nnwb::test
