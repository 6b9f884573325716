// nnwb-cli: the headless workbench (devices, data, train, ...). Qt-free so it builds on a GPU
// server without Qt.
#include <cstdio>
#include <exception>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/DataCommand.h"
#include "app/cli/TrainingFlags.h"
#include "nnwb/Version.h"

namespace {
void usage(std::FILE* out) {
    std::fprintf(
        out,
        "usage: nnwb-cli COMMAND [options]   (nnwb-cli --version: the version)\n"
        "  devices [--json]                       list compute devices (cpu, opencl:P:D)\n"
        "  data FILE [--json]                     summary of a price file (format, bars, "
        "fractals)\n"
        "  train --experiment FILE [--device ID] [--epochs N] [--batch B] [--json]\n"
        "        [--save-weights FILE] [--load-weights FILE] [--save-model M.safetensors]\n"
        "        [--runs-db PATH] [--no-record] [--name N] [--tags A,B] [--note TEXT]\n"
        "%s"
        "                                         train and print one line per epoch; the run is\n"
        "                                         recorded in the run store\n"
        "  bench [--device ID ...] [--preset NAME ...] [--batch B ...] [--seconds S] [--peer F]\n"
        "                                         training samples/s, forward latency, kernels\n"
        "  compare A B [...] [--epochs N] [--device ID ...] [--csv OUT]\n"
        "        [--runs-db PATH] [--no-record] [--tags A,B] [--note TEXT]\n"
        "                                         train experiment files or presets on the same\n"
        "                                         data (concurrently on different devices); per-\n"
        "                                         epoch table, summary, per-epoch CSV\n"
        "  predict --model M.safetensors --data FILE [--from T] [--to T] [--device ID]\n"
        "          [--csv OUT] [--json]        apply a model bundle: one row per bar (outputs,\n"
        "                                         signal, true label), then the metrics\n"
        "  export --model M.safetensors --onnx OUT.onnx [--batch N|dynamic]\n"
        "  export --experiment FILE --weights W.safetensors --onnx OUT.onnx [--batch N|dynamic]\n"
        "                                         ONNX model for MetaTrader 5 / onnxruntime: raw\n"
        "                                         features in, [batch, 3] none/buy/sell out;\n"
        "                                         --mql5 DIR instead of --onnx: DIR/model.onnx\n"
        "                                         and the Expert Advisor DIR/nnwb_expert.mq5\n"
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
// `nnwb-cli COMMAND --help`: what the command does, its options and exit status.
std::string commandHelp(const std::string& cmd) {
    if (cmd == "devices")
        return "usage: nnwb-cli devices [--json]\n"
               "Lists the compute devices: cpu (the native backend) and every OpenCL device as\n"
               "opencl:PLATFORM:DEVICE with its name, compute units, memory and OpenCL version.\n"
               "  --json   one JSON array instead of the table\n";
    if (cmd == "data")
        return "usage: nnwb-cli data FILE [--json]\n"
               "Reads a price file (MT5 export, MT4 history or generic OHLCV CSV) and prints its\n"
               "format, bar count, first and last bar, time frame, gaps and fractal counts.\n"
               "  --json   one JSON object instead of the text\n"
               "Exit status 2 with FILE:LINE: problem on stderr for a file that cannot be read.\n";
    if (cmd == "train")
        return "usage: nnwb-cli train --experiment FILE [options]\n"
               "Trains the experiment and prints one line per epoch (loss, accuracy, missed).\n"
               "  --experiment FILE      experiment JSON (required)\n"
               "  --device ID            cpu or opencl:P:D (default: the experiment's)\n"
               "  --epochs N             epochs to train (default: the experiment's)\n"
               "  --batch B              batch size (default: the experiment's)\n"
               "  --json                 one JSON object per epoch\n"
               "  --save-weights FILE    write the trained weights (safetensors) at the end\n"
               "  --load-weights FILE    start from these weights (shapes must match)\n"
               "  --save-model M.safetensors  write the model bundle (experiment + weights)\n"
               "  --runs-db PATH, --no-record, --name N, --tags A,B, --note TEXT\n"
               "                         where and how the run is recorded in the run store\n"
               "Best epoch, early stopping, schedules, clipping and class weights (each\n"
               "overrides the experiment's training section):\n" +
               std::string(nnwb::cli::kTrainingFlagsUsage) +
               "Exit status: 0 done, 1 the run failed (e.g. a non-finite loss), 2 bad input.\n";
    if (cmd == "bench")
        return "usage: nnwb-cli bench [--device ID ...] [--preset NAME ...] [--batch B ...]\n"
               "                      [--seconds S] [--top N] [--peer FILE ...] [--json]\n"
               "Training samples/s, forward latency per batch, (OpenCL) kernel launches per\n"
               "training step and, with NNWB_CL_PROFILE=1, the top N kernels' device time, of\n"
               "the presets on random data of their shapes; every combination of the lists.\n"
               "  --peer FILE    a peer's output (../shared/bench/torch_peer.py): each row also\n"
               "                 prints the peer's samples/s for that preset and batch and\n"
               "                 nnwb's ratio to it (lines without preset=, batch= and\n"
               "                 samples/s= are ignored; a file without any is an error)\n";
    if (cmd == "compare")
        return "usage: nnwb-cli compare A B [...] [--epochs N] [--device ID ...] [--csv OUT]\n"
               "Trains experiment files or presets on the data of the first one (concurrently\n"
               "on different devices), prints a line per run and epoch, then a summary table.\n"
               "  --epochs N     epochs of every run (default: each experiment's own)\n"
               "  --device ID    once for all runs, or once per run in order\n"
               "  --csv OUT      one row per run and epoch\n"
               "Exit status: 0 done, 1 a run failed, 2 bad input.\n";
    if (cmd == "predict")
        return "usage: nnwb-cli predict --model M.safetensors --data FILE [--from T] [--to T]\n"
               "                        [--device ID] [--csv OUT] [--json]\n"
               "Applies a model bundle to a price file: one row per bar (outputs, signal, true\n"
               "label where known), then the metrics of the bars whose labels are known.\n"
               "  --from T, --to T   first and last bar time to predict (default: all)\n"
               "  --device ID        cpu or opencl:P:D (default: cpu)\n"
               "  --csv OUT          the rows as CSV instead of the table\n"
               "  --json             one JSON object instead of the table\n"
               "Exit status: 0 done, 1 the model failed on the device, 2 bad input or files.\n";
    if (cmd == "export")
        return "usage: nnwb-cli export --model M.safetensors --onnx OUT.onnx [--batch N|dynamic]\n"
               "       nnwb-cli export --experiment FILE --weights W.safetensors --onnx OUT.onnx\n"
               "                       [--batch N|dynamic]\n"
               "Writes an ONNX model (opset 17) for MetaTrader 5 / onnxruntime: raw features in,\n"
               "[batch, 3] none/buy/sell out; checked with ONNX's checker and shape inference.\n"
               "  --batch N|dynamic  the batch dimension (default 1)\n"
               "  --mql5 DIR         instead of --onnx: write DIR/model.onnx and "
               "DIR/nnwb_expert.mq5,\n"
               "                     an Expert Advisor that computes the model's features from\n"
               "                     MqlRates, runs the model and prints none/buy/sell per bar\n"
               "                     (compile it next to model.onnx; batch 1 or dynamic)\n"
               "Exit status: 0 written, 1 the writer failed, 2 bad input or files.\n";
    if (cmd == "runs")
        return "usage: nnwb-cli runs list [--json] [--filter F] [--sort K]\n"
               "       nnwb-cli runs show ID [--json]\n"
               "       nnwb-cli runs export ID --csv OUT\n"
               "       nnwb-cli runs rm ID [ID ...]\n"
               "The recorded runs of the run store (every Train, comparison run and CLI run).\n"
               "  --filter F   words or key:value (keys name tag status device data source\n"
               "               note id comparison)\n"
               "  --sort K     id name date status device data params epochs loss accuracy\n"
               "               missed; -K sorts descending\n"
               "  --runs-db PATH  the database (else $NNWB_RUNS_DB, else\n"
               "               $XDG_DATA_HOME/nnwb/runs.sqlite, ~/.local/share/nnwb/runs.sqlite)\n"
               "Exit status: 0 done, 1 the store failed, 2 bad input or no such store or run.\n";
    return {};
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--version") {
        std::printf("nnwb-cli %s\n", NNWB_VERSION);
        return 0;
    }
    nnwb::cli::Args args(argv + 2, argv + argc);
    for (const std::string& a : args) {
        if (a != "--help" && a != "-h") continue;
        const std::string help = commandHelp(cmd);
        if (!help.empty()) {
            std::fputs(help.c_str(), stdout);
            return 0;
        }
    }
    try {
        if (cmd == "devices") return nnwb::cli::runDevices(args);
        if (cmd == "train") return nnwb::cli::runTrain(args);
        if (cmd == "data") return nnwb::runDataCommand(args);
        if (cmd == "bench") return nnwb::cli::runBench(args);
        if (cmd == "compare") return nnwb::cli::runCompare(args);
        if (cmd == "runs") return nnwb::cli::runRuns(args);
        if (cmd == "predict") return nnwb::cli::runPredict(args);
        if (cmd == "export") return nnwb::cli::runExport(args);
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
