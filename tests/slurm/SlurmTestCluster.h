// A Slurm cluster for the tests of label slurm, from Debian's packages and without systemd: munged
// as the munge user with a key of its own, slurmctld, and one slurmd per node name, all on this
// host (Debian's slurmd is built with multiple-slurmd support: `slurmd -N NAME`, each node with
// its own port, spool folder, pid and log file through %n in slurm.conf), configured in a
// temporary folder. Every daemon is stopped by its pid (stop(), also from the destructor when a
// test fails). Test thread only.
#pragma once

#include <QString>

#include <set>
#include <string>
#include <vector>

namespace nnwb::test {

class SlurmTestCluster {
public:
    struct Options {
        std::vector<std::string> nodes{"localhost"};
        int cpus = 2;         // per node
        int gpus = 2;         // fake GPUs per node (gres.conf: /dev/null, /dev/zero, ...)
        bool spread = false;  // the partition's LLN=YES: a job goes to the least loaded node
    };

    // Why this machine cannot run one ("" when it can): a missing program, or not root.
    static std::string unavailable();
    // Whether a missing piece fails a test instead of skipping it: NNWB_REQUIRE_SLURM=1 (the
    // README's test command, which installs the packages as root, sets it).
    static bool required();

    explicit SlurmTestCluster(Options options);
    ~SlurmTestCluster();
    SlurmTestCluster(const SlurmTestCluster&) = delete;
    SlurmTestCluster& operator=(const SlurmTestCluster&) = delete;

    // Writes the configuration, starts the daemons (SLURM_CONF is set for this process and its
    // children) and waits until every node is idle: "" or what went wrong, with the logs.
    std::string start();
    // Cancels every job, then stops slurmd, slurmctld and munged by their pids.
    void stop();

    // Runs a bash command line; its stdout and stderr. *code: its exit status (-1: killed after
    // timeoutMs).
    QString sh(const QString& command, int* code = nullptr, int timeoutMs = 30000) const;
    // A node crash: the node's slurmd, then the step daemons and every process of the jobs
    // running on it are killed with SIGKILL (no job gets a signal it could answer). The node is
    // not marked down: `scontrol update nodename=N state=down` does that. Returns the array
    // task ids (squeue's %K) of the jobs it killed.
    std::set<int> crashNode(const std::string& node);

    const std::string& dir() const { return dir_; }
    std::string logOf(const std::string& daemon) const;  // "slurmctld", "slurmd-n1", ...

private:
    Options o_;
    std::string dir_;
    bool started_ = false;

    int pidFromFile(const std::string& file) const;
    std::string writeConfig();
};

// Writes a sweep for the cluster tests into folder `d`: cut.csv (the first `rows` bars of the
// default data), exp.json (a dense network of 256 tanh units, batch 1, trained for `epochs`;
// about 0.6 s an epoch on one core for 3,000 bars) and spec.json (6 random learning rates,
// sweep `name`).
void writeSlurmSweep(const std::string& d, int rows, int epochs, const std::string& name);

}  // namespace nnwb::test
