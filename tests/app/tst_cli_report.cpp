// nnwb-cli report RUN|--sweep ID|--walkforward FILE --html OUT (issue 43): a walk-forward of a
// short cut of the bundled EURUSD H1 file with a tiny network, its --json output (the stitched
// trading with its verdict and trades) turned into one HTML page that Python's html.parser reads
// with every start tag closed, holding the verdict and the SVG charts and no external reference;
// bad input exits 2 naming the file and line; a recorded run's page likewise; a sweep's page has
// the leaderboard `sweep show --json` reports (each heading once: the parameter count as a second
// objective is "parameter count"), a parallel-coordinates line per trial, the importance and the
// deflated Sharpe ratio, and its best trial's verdict with that ratio; the text table ends with
// the verdict line. A walk-forward page has the trading per fold (the fold
// records carry it).
#include <QProcess>
#include <QtTest>
#include <algorithm>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/runs/RunStore.h"
#include "common/BarExperiments.h"
#include "common/CliFixture.h"
#include "common/TestUtil.h"
#include "model/data/DataConfig.h"
#include "model/trading/HtmlReport.h"
#include "model/trading/Verdict.h"

using json = nlohmann::json;

namespace {

// Python's html.parser over the file; void elements aside, every end tag must close the
// innermost open start tag and none may stay open. Prints "ok" or the problem.
const char* kCheckHtml = R"(
import sys, html.parser
VOID = {'meta', 'br', 'img', 'hr', 'input', 'link', 'col', 'area', 'base', 'wbr', 'source'}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.errors = []
    def handle_starttag(self, tag, attrs):
        if tag not in VOID: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs): pass
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append('end tag %s at %s, open %s' % (tag, self.getpos(), self.stack[-3:]))
        else: self.stack.pop()
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read()); p.close()
if p.stack: p.errors.append('left open: %s' % p.stack)
print('\n'.join(p.errors) if p.errors else 'ok')
)";

}  // namespace

class CliReportTest : public QObject, nnwb::test::CliFixture {
    Q_OBJECT

    static QString readText(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }
    static QString checkHtml(const QString& path) {
        QProcess py;
        py.start("python3", {"-c", kCheckHtml, path});
        if (!py.waitForFinished(60000)) return "python3 did not finish";
        return QString::fromUtf8(py.readAllStandardOutput()).trimmed();
    }

private Q_SLOTS:
    void initTestCase() {
        dir_ = QString::fromStdString(nnwb::test::tempDir());
        writeCut("cut.csv", 700);
        json e = nnwb::test::tinyMt5Experiment("wf", 3);
        e["validation"] = {{"mode", "walkforward"}, {"folds", 3}, {"embargo", 2}};
        write("walkforward.json", e.dump(2));
    }

    void walkForwardReportIsOneValidPage() {
        const auto wf = nnwb::test::runCli(
            {"walkforward", "--experiment", dir_ + "/walkforward.json", "--no-record", "--json"},
            300000);
        QVERIFY2(wf.code == 0, qPrintable(wf.err));
        const QString out = write("wf.jsonl", wf.out.toStdString());
        const json stitched = json::parse(wf.out.trimmed().split('\n').last().toStdString());
        const json& trading = stitched["stitched"]["trading"];
        QVERIFY(trading["verdict"].is_string());  // the verdict key of the trading JSON
        QVERIFY(trading["trades"].is_array());
        const size_t trades = trading["trades"].size();
        QCOMPARE(double(trades), trading["strategy"]["trades"].get<double>());

        const QString html = dir_ + "/report.html";
        const auto r = nnwb::test::runCli({"report", "--walkforward", out, "--html", html});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString page = QString::fromUtf8(f.readAll());
        // The verdict with the fold count, HTML-escaped as the page writes it.
        std::string verdict = trading["verdict"].get<std::string>();
        verdict.replace(verdict.find("Over the evaluated range"), 24, "Out of sample (3 folds)");
        QVERIFY2(page.contains(QString::fromStdString(verdict)), qPrintable(page.left(2000)));
        QVERIFY(page.count("<svg") >= (trades > 0 ? 5 : 0));
        QVERIFY(page.contains("<h2>Folds</h2>"));
        // Each fold's part of the stitched trading (issue 43): its record carries the figures
        // (they add up to the stitched trades) and the page has a row per fold.
        double foldTrades = 0;
        const QStringList lines = wf.out.trimmed().split('\n');
        for (int k = 0; k + 1 < lines.size(); ++k) {
            const json fold = json::parse(lines[k].toStdString());
            QVERIFY2(fold.contains("trading"), qPrintable(lines[k].left(300)));
            foldTrades += fold["trading"]["trades"].get<double>();
            QVERIFY(page.contains(
                QString("<tr><td>%1/3</td><td>%2 .. %3</td><td class=\"n\">%4</td>")
                    .arg(k + 1)
                    .arg(QString::fromStdString(fold["test"]["from"].get<std::string>()))
                    .arg(QString::fromStdString(fold["test"]["to"].get<std::string>()))
                    .arg(fold["trading"]["trades"].get<double>())));
        }
        QCOMPARE(lines.size(), 3 + 1);
        QCOMPARE(foldTrades, double(trades));
        QVERIFY(page.contains("<h2>Trading per fold</h2>"));
        // The charts of the window's Trading tab (issue 43 §1): the equity with buy and hold and
        // the random draws' 5-95 % band, a dashed line where each fold's test window starts
        // (in the equity and the underwater chart), the monthly table from the JSON's months.
        const json& curves = trading["curves"];
        QVERIFY(curves["strategy"].size() > 1);
        QCOMPARE(curves["randomHigh"].size(), curves["strategy"].size());
        QCOMPARE(curves["buyAndHold"].size(), curves["strategy"].size());
        double deepest = 0;
        for (const json& v : curves["underwater"]) deepest = std::min(deepest, v.get<double>());
        QCOMPARE(deepest, -trading["strategy"]["maxDrawdownPoints"].get<double>());
        QVERIFY(page.contains("random draws 95 %") && page.contains("buy and hold"));
        QCOMPARE(page.count("stroke-dasharray"), 2 * 3);
        QVERIFY(page.contains("the equity's change over each month"));
        QVERIFY(trading["monthly"].size() >= 1);
        // One row per trade in the trade list.
        QCOMPARE(page.count("<tr><td class=\"n\">"), int(trades));
        QVERIFY(!page.contains("http:") && !page.contains("https:") && !page.contains("<script"));
        QVERIFY(page.count("src=") == page.count("src=\"data:"));

        QCOMPARE(checkHtml(html), QString("ok"));
    }

    // The text table ends with the verdict and names the summed % figures for what they are.
    void textTableEndsWithTheVerdict() {
        const auto wf = nnwb::test::runCli(
            {"walkforward", "--experiment", dir_ + "/walkforward.json", "--no-record"}, 300000);
        QVERIFY2(wf.code == 0, qPrintable(wf.err));
        QVERIFY2(wf.out.contains("\nverdict: Over the evaluated range the strategy "),
                 qPrintable(wf.out));
        QVERIFY(wf.out.contains("\nsum of trade returns, %"));
        QVERIFY(wf.out.contains("\ndrawdown of summed trade returns, %"));
        QVERIFY(!wf.out.contains("\nnet %"));
    }

    // report RUN: a recorded holdout run's page with its verdict, figures and equity charts.
    void runReportIsOneValidPage() {
        json e = json::parse(readText(dir_ + "/walkforward.json").toStdString());
        e["validation"] = {{"mode", "holdout"}};
        write("holdout.json", e.dump(2));
        const QString db = dir_ + "/runs.sqlite";
        const auto t = nnwb::test::runCli(
            {"train", "--experiment", dir_ + "/holdout.json", "--runs-db", db}, 300000);
        QVERIFY2(t.code == 0, qPrintable(t.err));
        const QString html = dir_ + "/run.html";
        const auto r = nnwb::test::runCli({"report", "1", "--runs-db", db, "--html", html});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString page = readText(html);
        QVERIFY(page.contains("<h1>Run 1: wf</h1>"));
        QVERIFY(page.contains("<p class=\"verdict\">Over the evaluated range the strategy "));
        QCOMPARE(page.count("<svg"), 2);
        QVERIFY(!page.contains("http:") && !page.contains("<script"));
        QCOMPARE(checkHtml(html), QString("ok"));
        const auto missing = nnwb::test::runCli({"report", "7", "--runs-db", db, "--html", html});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.contains("no run 7 in " + db), qPrintable(missing.err));
        const auto both = nnwb::test::runCli(
            {"report", "1", "--walkforward", html, "--runs-db", db, "--html", html});
        QCOMPARE(both.code, 2);
    }

    // report --sweep ID: a four-trial sweep on the trading Sharpe ratio and the parameter count.
    void sweepReportIsOneValidPage() {
        json e = json::parse(readText(dir_ + "/walkforward.json").toStdString());
        e["validation"] = {{"mode", "holdout"}};
        e["training"]["epochs"] = 2;
        write("sweep-base.json", e.dump(2));
        const QString spec = write("sweep.json", R"({"name":"lr","experiment":"sweep-base.json",
            "method":"random","seed":2,"runCap":4,"epochs":2,
            "objective":{"metric":"trading.sharpe"},
            "secondObjective":{"metric":"parameters","goal":"min"},
            "parameters":[{"path":"training.optimizer.learningRate","min":0.0005,"max":0.05,
                           "log":true}]})");
        const QString db = dir_ + "/sweep.sqlite";
        const auto sw = nnwb::test::runCli(
            {"sweep", "run", spec, "--runs-db", db, "--slots", "cpu=2", "--quiet"}, 300000);
        QVERIFY2(sw.code == 0, qPrintable(sw.out + sw.err));
        const auto show =
            nnwb::test::runCli({"sweep", "show", "1", "--json", "--runs-db", db}, 60000);
        QVERIFY2(show.code == 0, qPrintable(show.err));
        const json s = json::parse(show.out.toStdString());
        const QString html = dir_ + "/sweep.html";
        const auto r =
            nnwb::test::runCli({"report", "--sweep", "1", "--runs-db", db, "--html", html});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString page = readText(html);
        QCOMPARE(checkHtml(html), QString("ok"));
        QVERIFY(page.contains("<h1>Sweep 1: lr</h1>"));
        QVERIFY(!page.contains("http:") && !page.contains("https:") && !page.contains("<script"));
        // The leaderboard as sweep show has it: one row per complete trial, best first.
        const int complete = s["counts"]["complete"].get<int>();
        QVERIFY(complete >= 2);
        const QString board = page.section("<h2>Leaderboard</h2>", 1).section("</table>", 0, 0);
        QCOMPARE(board.count("<tr>") - 1, complete);
        // Its headings, each once: the second objective, the parameter count, was a second
        // "parameters" column beside the trial's sampled parameters.
        QCOMPARE(board.section("</tr>", 0, 0),
                 QString("<table><tr><th>rank</th><th>trial</th><th>run</th><th>trading.sharpe"
                         "</th><th>parameter count</th><th>epochs</th><th>parameters</th>"));
        QVERIFY(page.contains("<h2>Pareto front (trading.sharpe and parameter count)</h2>"));
        QVERIFY2(board.contains(QString("<tr><td class=\"n\">1</td><td class=\"n\">%1</td>")
                                    .arg(s["best"]["number"].get<int>())),
                 qPrintable(board));
        // A line per trial with a learning rate: coloured with a value, grey without.
        const QString pc = page.section("<h2>Parallel coordinates</h2>", 1).section("</svg>", 0, 0);
        QCOMPARE(pc.count("<path "), int(s["trials"].size()));
        QCOMPARE(pc.count("stroke=\"#bbb\""), int(s["trials"].size()) - complete);
        QVERIFY(pc.contains(">learningRate<"));
        // Importance and the deflated Sharpe ratio, and the verdict that uses it.
        QVERIFY(page.contains("<h2>Parameter importance</h2>"));
        const json& d = s["deflatedSharpe"];
        QVERIFY2(d.is_object(), s.dump().c_str());
        QVERIFY(
            page.contains(QString::fromStdString(d["meaning"].get<std::string>()).toHtmlEscaped()));
        // The verdict of the trial with the best Sharpe, by the rules with its deflated Sharpe.
        const std::optional<nnwb::StoredRun> best =
            nnwb::RunStore(db.toStdString(), false).get(d["run"].get<int64_t>());
        QVERIFY(best && best->trading.is_object());
        nnwb::VerdictFigures f = nnwb::verdictFiguresOfJson(best->trading);
        f.deflatedSharpe = d["probability"].get<double>();
        const QString verdict = page.section("<p class=\"verdict\">", 1).section("</p>", 0, 0);
        QCOMPARE(verdict,
                 QString("Trial %1 (the best Sharpe of the sweep), validation part: %2")
                     .arg(d["bestTrial"].get<int>())
                     .arg(QString::fromStdString(nnwb::tradingVerdict(f)).toHtmlEscaped()));

        const auto missing =
            nnwb::test::runCli({"report", "--sweep", "9", "--runs-db", db, "--html", html});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.contains("no sweep 9 in " + db), qPrintable(missing.err));
        const auto two =
            nnwb::test::runCli({"report", "1", "--sweep", "1", "--runs-db", db, "--html", html});
        QCOMPARE(two.code, 2);
    }

    void badInputNamesTheFileAndLine() {
        const QString bad = write("bad.jsonl", "{\"fold\": 1}\nnot json\n");
        auto r = nnwb::test::runCli({"report", "--walkforward", bad, "--html", dir_ + "/x.html"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(bad + ":2: not JSON"), qPrintable(r.err));
        const QString noStitched = write("folds.jsonl", "{\"fold\": 1}\n");
        r = nnwb::test::runCli({"report", "--walkforward", noStitched, "--html", dir_ + "/x.html"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no {\"stitched\": ...} line"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_ + "/x.html"));
    }
};

QTEST_GUILESS_MAIN(CliReportTest)
#include "tst_cli_report.moc"
