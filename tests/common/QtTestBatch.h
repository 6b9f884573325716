// Included first (-include) in every Qt Test batch program (tests/CMakeLists.txt): QTEST_MAIN,
// QTEST_GUILESS_MAIN and QTEST_APPLESS_MAIN of a test file no longer define main() but a
// function of the file's own, registered under the file's name (TestBatch.h), with the same
// body as Qt's: the application object, initMain, the test object, qExec.
#pragma once

#include "common/TestBatch.h"

#include <QtTest/qtest.h>

#undef QTEST_MAIN_WRAPPER
#define QTEST_MAIN_WRAPPER(TestObject, ...) \
    NNWB_QTEST_BATCH_MAIN_(TestObject, __COUNTER__, __VA_ARGS__)
#define NNWB_QTEST_BATCH_MAIN_(TestObject, n, ...) \
    NNWB_QTEST_BATCH_MAIN__(TestObject, n, __VA_ARGS__)
#define NNWB_QTEST_BATCH_MAIN__(TestObject, n, ...)                        \
    static int nnwbQtTestMain##n(int argc, char* argv[]) {                 \
        TESTLIB_SELFCOVERAGE_START(#TestObject)                            \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>(); \
        __VA_ARGS__                                                        \
        TestObject tc;                                                     \
        QTEST_SET_MAIN_SOURCE_PATH                                         \
        return QTest::qExec(&tc, argc, argv);                              \
    }                                                                      \
    static const bool nnwbQtTestRegistered##n = nnwb::testbatch::add(__FILE__, &nnwbQtTestMain##n);
