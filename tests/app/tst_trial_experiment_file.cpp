// A sweep trial's experiment file (app/sweep/TrialExperimentFile.h, issue 48 item 8): the
// coordinator writes it without the two syncs of Experiment::save, which sat on the slot's way
// from one trial to the next; the file must still hold exactly what Experiment::save writes
// (the trial and a resumed sweep read it as an experiment file), replace an older one through
// a rename, and leave no temporary file, also when the write fails.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/sweep/TrialExperimentFile.h"
#include "common/BarExperiments.h"
#include "model/Experiment.h"

using namespace nnwb;
namespace fs = std::filesystem;

namespace {
std::string bytesOf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

int filesIn(const fs::path& dir) {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}
}  // namespace

class TstTrialExperimentFile : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path dir() const { return fs::path(tmp_.path().toStdString()); }

private slots:
    void holdsWhatExperimentSaveWrites() {
        const Experiment e =
            Experiment::fromJson(test::tinyMt5Experiment("trial 3", 4, "/data/cut.csv"));
        e.save((dir() / "saved.json").string());
        writeTrialExperiment(e, (dir() / "trial-3.json").string());
        QCOMPARE(bytesOf(dir() / "trial-3.json"), bytesOf(dir() / "saved.json"));
        const Experiment back = Experiment::load((dir() / "trial-3.json").string());
        QCOMPARE(back.toJson().dump(), e.toJson().dump());
    }

    void replacesAnOlderFileAndLeavesNoTemporaryFile() {
        const fs::path folder = dir() / "replace";
        fs::create_directories(folder);
        const std::string file = (folder / "trial-0.json").string();
        std::ofstream(file) << "an older attempt's experiment, longer than nothing";
        const Experiment e = Experiment::fromJson(test::tinyMt5Experiment("trial 0", 2));
        writeTrialExperiment(e, file);
        QCOMPARE(Experiment::load(file).toJson().dump(), e.toJson().dump());
        QCOMPARE(filesIn(folder), 1);
    }

    // nnwb runs as root: a trial file that is a link stays one (its target is written), as
    // every save of writeFileAtomic (the copy of it this replaced renamed over the link).
    void aLinkStaysALink() {
        const fs::path folder = dir() / "link";
        fs::create_directories(folder);
        const fs::path target = folder / "elsewhere.json", link = folder / "trial-2.json";
        std::ofstream(target) << "{}";
        fs::create_symlink(target, link);
        const Experiment e = Experiment::fromJson(test::tinyMt5Experiment("trial 2", 2));
        writeTrialExperiment(e, link.string());
        QVERIFY(fs::is_symlink(fs::symlink_status(link)));
        QCOMPARE(Experiment::load(target.string()).toJson().dump(), e.toJson().dump());
        QCOMPARE(filesIn(folder), 2);
    }

    void aFailedWriteSaysWhereAndLeavesNothing() {
        const fs::path folder = dir() / "fails";
        fs::create_directories(folder);
        const std::string file = (folder / "missing" / "trial-1.json").string();
        const Experiment e = Experiment::fromJson(test::tinyMt5Experiment("trial 1", 2));
        bool threw = false;
        try {
            writeTrialExperiment(e, file);
        } catch (const std::runtime_error& err) {
            threw = true;
            QVERIFY2(std::string(err.what()).rfind("cannot save " + file + ": ", 0) == 0,
                     err.what());
        }
        QVERIFY(threw);
        QCOMPARE(filesIn(folder), 0);
    }
};

QTEST_MAIN(TstTrialExperimentFile)
#include "tst_trial_experiment_file.moc"
