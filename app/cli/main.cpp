// nnwb-cli: the headless workbench (devices, data, train, ...). Qt-free so it builds on a GPU
// server without Qt.
#include <cstdio>
#include <exception>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/DataCommand.h"
#include "app/cli/TrainingFlags.h"

namespace {
void usage(std::FILE* out) {
    std::fprintf(
        out,
        "usage: nnwb-cli COMMAND [options]\n"
        "  devices [--json]                       list compute devices (cpu, opencl:P:D)\n"
        "  data FILE [--json]                     summary of a price file (format, bars, "
        "fractals)\n"
        "  train --experiment FILE [--device ID] [--epochs N] [--batch B] [--json]\n"
        "        [--save-weights FILE] [--load-weights FILE] [--save-model M.safetensors]\n"
        "        [--runs-db PATH] [--no-record] [--name N] [--tags A,B] [--note TEXT]\n"
        "%s"
        "                                         train and print one line per epoch; the run is\n"
        "                                         recorded in the run store\n"
        "  bench [--device ID ...] [--preset NAME ...] [--batch B ...] [--seconds S] [--json]\n"
        "                                         training samples/s, forward latency, kernels\n"
        "  compare A B [...] [--epochs N] [--device ID ...] [--csv OUT]\n"
        "        [--runs-db PATH] [--no-record] [--tags A,B] [--note TEXT]\n"
        "                                         train experiment files or presets on the same\n"
        "                                         data (concurrently on different devices); per-\n"
        "                                         epoch table, summary, per-epoch CSV\n"
        "  predict --model M.safetensors --data FILE [--from T] [--to T] [--device ID]\n"
        "          [--csv OUT] [--json]        apply a model bundle: one row per bar (outputs,\n"
        "                                         signal, true label), then the metrics\n"
        "  runs list [--json] [--filter F] [--sort K] the recorded runs (filter: words or\n"
        "                                         key:value, keys name tag status device data\n"
        "                                         source note id comparison; sort: id name date\n"
        "                                         status device data params epochs loss\n"
        "                                         accuracy missed, -K descending)\n"
        "  runs show ID [--json]                  one run: settings, data, device, epochs, models\n"
        "  runs export ID --csv OUT               its per-epoch figures as CSV\n"
        "  runs rm ID [ID ...]                    delete runs and their model files\n"
        "      (runs database: --runs-db PATH, else $NNWB_RUNS_DB, else\n"
        "       $XDG_DATA_HOME/nnwb/runs.sqlite, ~/.local/share/nnwb/runs.sqlite)\n",
        nnwb::cli::kTrainingFlagsUsage);
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    nnwb::cli::Args args(argv + 2, argv + argc);
    try {
        if (cmd == "devices") return nnwb::cli::runDevices(args);
        if (cmd == "train") return nnwb::cli::runTrain(args);
        if (cmd == "data") return nnwb::runDataCommand(args);
        if (cmd == "bench") return nnwb::cli::runBench(args);
        if (cmd == "compare") return nnwb::cli::runCompare(args);
        if (cmd == "runs") return nnwb::cli::runRuns(args);
        if (cmd == "predict") return nnwb::cli::runPredict(args);
        if (cmd == "help" || cmd == "--help" || cmd == "-h") {
            usage(stdout);
            return 0;
        }
        std::fprintf(stderr, "nnwb-cli: unknown command '%s'\n", cmd.c_str());
        usage(stderr);
        return 2;
    } catch (const nnwb::cli::UsageError& e) {
        std::fprintf(stderr, "nnwb-cli %s: %s\n", cmd.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nnwb-cli %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
