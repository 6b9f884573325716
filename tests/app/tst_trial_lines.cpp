// The trial protocol's one codec (app/trial/TrialLines.cpp, app/trial/TrialEmitter.cpp): every
// line kind (a kept worker's trial and ready lines too) survives a round trip through encodeLine /
// decodeLine (alone and as a packed member), a malformed line of a known kind is refused naming its
// kind, member and key, stray text is no line, the answers decode as the child reads them (a word,
// an object by member, an unknown word stops), and the emitter writes and asks as a trial alone and
// as a packed trial.
#include <QtTest>

#include <cstdio>

#include "app/trial/TrialEmitter.h"
#include "app/trial/TrialLines.h"

using namespace nnwb;
// Using-declarations, not a using-directive: the test programs are compiled in unity batches and
// nnwb::trial::Fold would make nnwb::Fold ambiguous in the files after this one.
using nnwb::trial::Answer;
using nnwb::trial::decodeAnswers;
using nnwb::trial::decodeLine;
using nnwb::trial::encodeAnswers;
using nnwb::trial::encodeLine;
using nnwb::trial::Line;
using nnwb::trial::LineError;
using nnwb::trial::LineKind;
using nnwb::trial::lineKindName;
using nnwb::trial::readLine;
using nnwb::trial::TrialEmitter;

namespace {

EpochMetrics metrics(double loss, double accuracy) {
    EpochMetrics m;
    m.samples = 40;
    m.loss = loss;
    m.accuracyPct = accuracy;
    m.missedPct = 12.5;
    m.signalCount = 24;
    m.patterns = 3;
    m.confusion[0][1] = 2;
    m.confusion[2][2] = 7;
    return m;
}

void sameMetrics(const EpochMetrics& a, const EpochMetrics& b) {
    QCOMPARE(a.samples, b.samples);
    QCOMPARE(a.loss, b.loss);
    QCOMPARE(a.accuracyPct, b.accuracyPct);
    QCOMPARE(a.missedPct, b.missedPct);
    QCOMPARE(a.signalCount, b.signalCount);
    QCOMPARE(a.patterns, b.patterns);
    QVERIFY(a.confusion == b.confusion);
}

// Every kind of line with its fields set to values that are not their defaults.
std::vector<Line> everyKind() {
    std::vector<Line> v;
    Line s;
    s.kind = LineKind::Started;
    s.started = {{"provenance", {{"dataFile", "/d/eurusd.csv"}, {"dataBars", 900}}},
                 {"parameters", 123},
                 {"trainSamples", 80},
                 {"validationSamples", 20},
                 {"deviceId", "cpu"},
                 {"deviceName", "CPU (native)"},
                 {"data", "eurusd.csv, 900 bars"},
                 {"epochs", 9},
                 {"firstEpoch", 3},
                 {"seed", 77}};
    v.push_back(s);
    Line e;
    e.kind = LineKind::Epoch;
    e.epoch.epoch = 4;
    e.epoch.seconds = 0.25;
    e.epoch.samplesPerSecond = 3200.5;
    e.epoch.taskMetrics = true;
    e.epoch.learningRate = 0.003;
    e.epoch.bestEpoch = 3;
    e.epoch.isBest = false;
    e.epoch.stoppedEarly = true;
    e.epoch.gradNormMax = 2.5;
    e.epoch.gradNormMean = 0.75;
    e.epoch.train = metrics(0.31, 55.0);
    e.epoch.validation = metrics(0.42, 51.25);
    e.hasValidation = true;
    v.push_back(e);
    Line f;
    f.kind = LineKind::Fold;
    f.fold = {2, 5, "failed", 6, 4, metrics(0.5, 49.0), "loss is NaN"};
    v.push_back(f);
    Line r;
    r.kind = LineKind::Result;
    r.trading = {{"part", "outOfSample"}, {"strategy", {{"netPoints", 12.5}}}};
    r.outOfSample = metrics(0.27, 61.5);
    v.push_back(r);
    Line a;
    a.kind = LineKind::Answer;
    a.answerEpoch = 5;
    a.answerMembers = {0, 2, 3};
    v.push_back(a);
    Line end;
    end.kind = LineKind::End;
    end.end = {"pruned", "pruned after epoch 4", 3};
    v.push_back(end);
    Line trial;  // a kept worker's request
    trial.kind = LineKind::Trial;
    trial.argv = {"train", "--experiment", "/s/trial-4.json", "--trial"};
    v.push_back(trial);
    Line ready;
    ready.kind = LineKind::Ready;
    ready.readyStatus = 3;
    v.push_back(ready);
    return v;
}

void sameLine(const Line& a, const Line& b) {
    QCOMPARE(int(a.kind), int(b.kind));
    QCOMPARE(a.member, b.member);
    QCOMPARE(a.started, b.started);
    QCOMPARE(a.hasValidation, b.hasValidation);
    QCOMPARE(a.epoch.epoch, b.epoch.epoch);
    QCOMPARE(a.epoch.seconds, b.epoch.seconds);
    QCOMPARE(a.epoch.samplesPerSecond, b.epoch.samplesPerSecond);
    QCOMPARE(a.epoch.learningRate, b.epoch.learningRate);
    QCOMPARE(a.epoch.bestEpoch, b.epoch.bestEpoch);
    QCOMPARE(a.epoch.isBest, b.epoch.isBest);
    QCOMPARE(a.epoch.stoppedEarly, b.epoch.stoppedEarly);
    QCOMPARE(a.epoch.gradNormMax, b.epoch.gradNormMax);
    QCOMPARE(a.epoch.gradNormMean, b.epoch.gradNormMean);
    sameMetrics(a.epoch.train, b.epoch.train);
    sameMetrics(a.epoch.validation, b.epoch.validation);
    QCOMPARE(a.fold.fold, b.fold.fold);
    QCOMPARE(a.fold.folds, b.fold.folds);
    QCOMPARE(a.fold.status, b.fold.status);
    QCOMPARE(a.fold.epochs, b.fold.epochs);
    QCOMPARE(a.fold.bestEpoch, b.fold.bestEpoch);
    QCOMPARE(a.fold.error, b.fold.error);
    sameMetrics(a.fold.test, b.fold.test);
    QCOMPARE(a.trading, b.trading);
    QCOMPARE(a.outOfSample.has_value(), b.outOfSample.has_value());
    if (a.outOfSample) sameMetrics(*a.outOfSample, *b.outOfSample);
    QCOMPARE(a.answerEpoch, b.answerEpoch);
    QCOMPARE(a.answerMembers, b.answerMembers);
    QCOMPARE(a.end.status, b.end.status);
    QCOMPARE(a.end.error, b.end.error);
    QCOMPARE(a.end.modelEpoch, b.end.modelEpoch);
    QCOMPARE(a.argv, b.argv);
    QCOMPARE(a.readyStatus, b.readyStatus);
}

QString refusal(const std::string& text) {
    try {
        decodeLine(text);
    } catch (const LineError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// What a TrialEmitter wrote to `out`, line by line.
QStringList written(std::FILE* out) {
    std::rewind(out);
    QStringList lines;
    std::string line;
    while (readLine(out, line)) lines << QString::fromStdString(line);
    return lines;
}

}  // namespace

class TrialLinesTest : public QObject {
    Q_OBJECT
private slots:
    void everyLineKindRoundTrips() {
        for (const Line& l : everyKind()) {
            for (const std::optional<int> member : {std::optional<int>(), std::optional<int>(2)}) {
                Line in = l;
                in.member = member;
                const std::string text = encodeLine(in);
                const nlohmann::json j = nlohmann::json::parse(text);
                QCOMPARE(j["event"].get<std::string>(), std::string(lineKindName(l.kind)));
                QCOMPARE(j.contains("member"), member.has_value());
                const std::optional<Line> out = decodeLine(text);
                QVERIFY2(out, text.c_str());
                sameLine(*out, in);
                if (QTest::currentTestFailed()) qWarning("line: %s", text.c_str());
            }
        }
    }

    void figuresHaveOneKeyPerMetric() {
        // Epoch, fold and result lines key accuracy and missed alike (no accuracyPct).
        for (const Line& l : everyKind()) {
            const std::string text = encodeLine(l);
            QVERIFY2(text.find("accuracyPct") == std::string::npos, text.c_str());
            QVERIFY2(text.find("missedPct") == std::string::npos, text.c_str());
        }
        const auto r = nlohmann::json::parse(encodeLine(everyKind()[3]));
        QCOMPARE(r["outOfSample"]["accuracy"].get<double>(), 61.5);
        QCOMPARE(r["outOfSample"]["missed"].get<double>(), 12.5);
    }

    void malformedLinesAreRefusedNamingTheirKindAndKey() {
        QCOMPARE(refusal(R"({"event":"epoch","epoch":2,"seconds":1,"samplesPerSecond":9,)"
                         R"("train":{"samples":4}})"),
                 QString("trial protocol: epoch line: train.loss: missing"));
        QCOMPARE(refusal(R"({"event":"epoch","member":3,"epoch":"two"})"),
                 QString("trial protocol: epoch line of member 3: epoch: wrong type"));
        QCOMPARE(refusal(R"({"event":"end"})"),
                 QString("trial protocol: end line: status: missing"));
        QCOMPARE(refusal(R"({"event":"end","status":"failed","modelEpoch":"x"})"),
                 QString("trial protocol: end line: modelEpoch: wrong type"));
        QCOMPARE(refusal(R"({"event":"started","parameters":5})"),
                 QString("trial protocol: started line: epochs: missing"));
        QCOMPARE(refusal(R"({"event":"started","parameters":5,"epochs":3,"seed":"s"})"),
                 QString("trial protocol: started line: seed: wrong type"));
        QCOMPARE(refusal(R"({"event":"fold","fold":1,"folds":3,"status":"completed","epochs":2,)"
                         R"("bestEpoch":2,"test":{"samples":9,"loss":0.2,"accuracy":50}})"),
                 QString("trial protocol: fold line: test.missed: missing"));
        QCOMPARE(refusal(R"({"event":"result","trading":7})"),
                 QString("trial protocol: result line: trading: wrong type"));
        QCOMPARE(refusal(R"({"event":"answer","epoch":1,"members":"all"})"),
                 QString("trial protocol: answer line: members: wrong type"));
        QCOMPARE(refusal(R"({"event":"trial","argv":["sweep","run"]})"),
                 QString("trial protocol: trial line: argv: not a train command"));
        QCOMPARE(refusal(R"({"event":"ready"})"),
                 QString("trial protocol: ready line: status: missing"));
        QCOMPARE(refusal(R"({"event":"end","member":-1,"status":"failed"})"),
                 QString("trial protocol: end line: member: not a member index"));
        try {
            decodeLine(R"({"event":"epoch","member":1})");
            QFAIL("an epoch line without fields was taken");
        } catch (const LineError& e) {
            QCOMPARE(int(e.kind()), int(LineKind::Epoch));
            QCOMPARE(e.member(), std::optional<int>(1));
        }
    }

    void strayTextIsNoLine() {
        for (const char* text : {"", "warning: something", "[1,2]", R"({"event":"progress"})",
                                 R"({"epoch":1})", R"({"event":3})"})
            QVERIFY2(!decodeLine(text), text);
    }

    void answersDecodeAsTheChildReadsThem() {
        using A = std::vector<Answer>;
        QCOMPARE(decodeAnswers("continue", {0}), A{Answer::Continue});
        QCOMPARE(decodeAnswers("prune", {0}), A{Answer::Prune});
        QCOMPARE(decodeAnswers("stop", {0, 1}), (A{Answer::Stop, Answer::Stop}));
        QCOMPARE(decodeAnswers("", {0}), A{Answer::Stop});
        QCOMPARE(decodeAnswers("maybe", {0}), A{Answer::Stop});
        QCOMPARE(decodeAnswers(R"({"0":"continue","2":"prune","3":"stop"})", {0, 1, 2, 3}),
                 (A{Answer::Continue, Answer::Continue, Answer::Prune, Answer::Stop}));
        QCOMPARE(decodeAnswers(R"({"1":7})", {1}), A{Answer::Stop});
        QCOMPARE(encodeAnswers({{0, Answer::Prune}}, true), std::string("prune"));
        const std::string packed = encodeAnswers({{0, Answer::Continue}, {3, Answer::Stop}}, false);
        QCOMPARE(packed, std::string(R"({"0":"continue","3":"stop"})"));
        QCOMPARE(decodeAnswers(packed, {0, 3}), (A{Answer::Continue, Answer::Stop}));
    }

    void theEmitterWritesAndAsksAloneAndPacked() {
        for (const bool packed : {false, true}) {
            std::FILE* out = std::tmpfile();
            std::FILE* in = std::tmpfile();
            std::fputs(packed ? "{\"1\":\"prune\"}\n" : "prune\n", in);
            std::rewind(in);
            TrialEmitter emitter(packed, out, in);
            Line end = everyKind().back();
            emitter.write(end, 1);
            const auto answers = emitter.ask(4, {0, 1});
            QVERIFY(answers);
            QCOMPARE(*answers, packed ? (std::vector<Answer>{Answer::Continue, Answer::Prune})
                                      : (std::vector<Answer>{Answer::Prune, Answer::Prune}));
            QVERIFY(!emitter.ask(5, {0}));  // the end of input
            const QStringList lines = written(out);
            // Alone: the end line without member and no answer line; packed: the end line with its
            // member, then the answer line.
            QCOMPARE(lines.size(), packed ? 3 : 1);
            const auto first = decodeLine(lines[0].toStdString());
            QCOMPARE(first->member, packed ? std::optional<int>(1) : std::nullopt);
            if (packed) {
                const auto ask = decodeLine(lines[1].toStdString());
                QCOMPARE(int(ask->kind), int(LineKind::Answer));
                QVERIFY(!ask->member);  // a round's line, not a member's
                QCOMPARE(ask->answerEpoch, 4);
                QCOMPARE(ask->answerMembers, (std::vector<int>{0, 1}));
            }
            std::fclose(out);
            std::fclose(in);
        }
    }
};

QTEST_MAIN(TrialLinesTest)
#include "tst_trial_lines.moc"
