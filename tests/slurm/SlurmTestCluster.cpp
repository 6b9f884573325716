#include "SlurmTestCluster.h"

#include <QProcess>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/TestUtil.h"
#include "common/TextHelpers.h"
#include "model/data/DataConfig.h"

namespace fs = std::filesystem;

namespace nnwb::test {

namespace {

void sleepMs(int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// Ports no one listens on now, from the kernel (bound to port 0 together, so they differ), so
// that two clusters on one machine (ctest -j) do not clash.
std::vector<int> freePorts(int n) {
    std::vector<int> fds, ports;
    for (int i = 0; i < n; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
            ports.push_back(20000 + int(::getpid() % 20000) + i);  // unlikely; a guess
        else
            ports.push_back(ntohs(a.sin_port));
        fds.push_back(fd);
    }
    for (int fd : fds)
        if (fd >= 0) ::close(fd);
    return ports;
}

// A process that is gone or a zombie (a daemon's parent may not reap it at once).
bool gone(int pid) {
    if (::kill(pid, 0) != 0) return true;
    const std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
    const size_t paren = stat.rfind(')');
    return paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] == 'Z';
}

void stopPid(int pid, int sig, int waitMs) {
    if (pid <= 1) return;
    ::kill(pid, sig);
    for (int i = 0; i < waitMs / 50 && !gone(pid); ++i) sleepMs(50);
    if (!gone(pid)) ::kill(pid, SIGKILL);
}

// NAME=VALUE entries of a process's environment.
std::set<std::string> environOf(const std::string& pid) {
    std::set<std::string> out;
    std::istringstream in(readText("/proc/" + pid + "/environ"));
    for (std::string e; std::getline(in, e, '\0');) out.insert(e);
    return out;
}

}  // namespace

bool SlurmTestCluster::required() {
    return qEnvironmentVariableIntValue("NNWB_REQUIRE_SLURM") == 1;
}

std::string SlurmTestCluster::unavailable() {
    for (const char* bin :
         {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"})
        if (!fs::exists(bin))
            return std::string(bin) +
                   " is missing: install munge, slurmctld, slurmd and slurm-client "
                   "(scripts/nnwb.sh test does)";
    if (::geteuid() != 0) return "needs root (munged runs as the munge user, slurmd as root)";
    return "";
}

SlurmTestCluster::SlurmTestCluster(Options options) : o_(std::move(options)) {}

SlurmTestCluster::~SlurmTestCluster() {
    stop();
}

int SlurmTestCluster::pidFromFile(const std::string& file) const {
    return std::atoi(readText(dir_ + "/" + file).c_str());
}

std::string SlurmTestCluster::logOf(const std::string& daemon) const {
    return readText(dir_ + "/log/" + daemon + ".log");
}

QString SlurmTestCluster::sh(const QString& command, int* code, int timeoutMs) const {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start("bash", {"-c", command});
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    if (code) *code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return QString::fromUtf8(p.readAll());
}

std::string SlurmTestCluster::writeConfig() {
    const std::vector<int> ports = freePorts(1 + int(o_.nodes.size()));
    std::ostringstream c;
    c << "ClusterName=nnwbtest\nSlurmctldHost=localhost\nSlurmUser=root\nSlurmdUser=root\n"
      << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << dir_
      << "/msock/munge.sock\nSlurmctldPort=" << ports[0] << "\nStateSaveLocation=" << dir_
      << "/state\nSlurmdSpoolDir=" << dir_ << "/spool/%n\nSlurmctldPidFile=" << dir_
      << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd-%n.pid\nSlurmctldLogFile=" << dir_
      << "/log/slurmctld.log\nSlurmdLogFile=" << dir_ << "/log/slurmd-%n.log\n"
      << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
      << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nGresTypes=gpu\n"
      << "SchedulerType=sched/backfill\nSchedulerParameters=sched_interval=1\n"
      << "AccountingStorageType=accounting_storage/none\nJobAcctGatherType=jobacct_gather/none\n"
      << "JobCompType=jobcomp/none\nMpiDefault=none\nReturnToService=2\nKillWait=5\n"
      << "MinJobAge=2\n";
    std::ostringstream gres, names;
    static const char* const kFakeGpus[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random"};
    for (size_t i = 0; i < o_.nodes.size(); ++i) {
        const std::string& n = o_.nodes[i];
        c << "NodeName=" << n << " NodeHostname=localhost Port=" << ports[i + 1]
          << " CPUs=" << o_.cpus << " RealMemory=4000 Gres=gpu:" << o_.gpus << " State=UNKNOWN\n";
        for (int g = 0; g < o_.gpus && g < 4; ++g)
            gres << "NodeName=" << n << " Name=gpu File=" << kFakeGpus[g] << "\n";
        names << (i ? "," : "") << n;
        fs::create_directories(dir_ + "/spool/" + n);
    }
    c << "PartitionName=debug Nodes=" << names.str() << " Default=YES MaxTime=INFINITE State=UP"
      << (o_.spread ? " LLN=YES" : "") << "\n";
    std::ofstream(dir_ + "/slurm.conf") << c.str();
    std::ofstream(dir_ + "/gres.conf") << gres.str();
    return dir_ + "/slurm.conf";
}

std::string SlurmTestCluster::start() {
    if (o_.gpus > 4) return "at most 4 fake GPUs a node";
    dir_ = tempDir();
    ::chmod(dir_.c_str(), 0755);
    for (const char* d : {"state", "spool", "log", "munge", "msock"})
        fs::create_directories(dir_ + "/" + d);
    const QString b = QString::fromStdString(dir_);
    int code = 0;
    QString out = sh(QString("dd if=/dev/urandom of=%1/munge/munge.key bs=1024 count=1 "
                             "2>/dev/null && chown -R munge:munge %1/munge %1/msock && chmod 700 "
                             "%1/munge && chmod 755 %1/msock && chmod 400 %1/munge/munge.key")
                         .arg(b),
                     &code);
    if (code != 0) return "the munge key: " + out.toStdString();
    qputenv("SLURM_CONF", QByteArray::fromStdString(writeConfig()));
    started_ = true;
    QString daemons = QString(
                          "runuser -u munge -- /usr/sbin/munged --key-file=%1/munge/munge.key "
                          "--socket=%1/msock/munge.sock --pid-file=%1/munge/munged.pid "
                          "--log-file=%1/munge/munged.log --seed-file=%1/munge/seed && "
                          "/usr/sbin/slurmctld -i")
                          .arg(b);
    for (const std::string& n : o_.nodes)
        daemons += " && /usr/sbin/slurmd -N " + QString::fromStdString(n);
    out = sh(daemons, &code);
    if (code != 0) return out.toStdString() + logOf("slurmctld");
    const QString want = QString::number(o_.nodes.size());
    QString idle;
    for (int i = 0; i < 150 && idle != want; ++i) {
        sleepMs(200);
        idle = sh("sinfo -h -N -t idle -o %N | sort -u | wc -l").trimmed();
    }
    if (idle != want) {
        std::string logs;
        for (const std::string& n : o_.nodes) logs += logOf("slurmd-" + n);
        return "not every node is idle:\n" + sh("sinfo -N").toStdString() + logs;
    }
    return "";
}

std::set<int> SlurmTestCluster::crashNode(const std::string& node) {
    const QString jobs =
        sh(QString("squeue -h -w %1 -t running -o '%A %K'").arg(QString::fromStdString(node)));
    std::set<std::string> ids;
    std::set<int> tasks;
    for (const QString& j : jobs.split('\n', Qt::SkipEmptyParts)) {
        ids.insert(j.section(' ', 0, 0).toStdString());
        tasks.insert(j.section(' ', 1, 1).toInt());
    }
    stopPid(pidFromFile("slurmd-" + node + ".pid"), SIGKILL, 2000);
    // This cluster's processes (their SLURM_CONF) of those jobs: step daemons first, so that none
    // reports its job's end, then the tasks and their children.
    const std::string conf = "SLURM_CONF=" + dir_ + "/slurm.conf";
    std::vector<int> stepds, procs;
    for (const auto& p : fs::directory_iterator("/proc")) {
        const std::string pid = p.path().filename().string();
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::set<std::string> env = environOf(pid);
        if (!env.count(conf)) continue;
        const std::string cmd = readText("/proc/" + pid + "/cmdline");
        for (const std::string& id : ids) {
            if (cmd.rfind("slurmstepd: [" + id + ".", 0) == 0) stepds.push_back(std::stoi(pid));
            if (env.count("SLURM_JOB_ID=" + id) && env.count("SLURMD_NODENAME=" + node))
                procs.push_back(std::stoi(pid));
        }
    }
    for (int pid : stepds) ::kill(pid, SIGKILL);
    for (int pid : procs) ::kill(pid, SIGKILL);
    for (int pid : stepds) stopPid(pid, SIGKILL, 2000);
    for (int pid : procs) stopPid(pid, SIGKILL, 2000);
    return tasks;
}

void SlurmTestCluster::stop() {
    if (!started_) return;
    // Jobs first, so their step daemons end with them.
    sh("scancel --full -u root 2>/dev/null; true");
    for (int i = 0; i < 50 && !sh("squeue -h 2>/dev/null").trimmed().isEmpty(); ++i) sleepMs(200);
    std::vector<std::string> files;
    for (const std::string& n : o_.nodes) files.push_back("slurmd-" + n + ".pid");
    files.push_back("slurmctld.pid");
    files.push_back("munge/munged.pid");
    for (const std::string& f : files) stopPid(pidFromFile(f), SIGTERM, 5000);
    started_ = false;
}

void writeSlurmSweep(const std::string& d, int rows, int epochs, const std::string& name) {
    using nlohmann::json;
    std::ifstream in(nnwb::defaultDataFile());
    std::string cut, line;
    for (int i = 0; i <= rows && std::getline(in, line); ++i) cut += line + "\n";
    writeText(d + "/cut.csv", cut);
    const json e = {{"formatVersion", 2},
                    {"name", "dense"},
                    {"data", {{"file", "cut.csv"}, {"window", 24}}},
                    {"model",
                     {{"layers",
                       {{{"type", "dense"}, {"neurons", 256}, {"activation", "tanh"}},
                        {{"type", "dense"}, {"neurons", 3}, {"activation", "sigmoid"}}}}}},
                    {"training", {{"epochs", epochs}, {"batchSize", 1}, {"seed", 5}}}};
    writeText(d + "/exp.json", e.dump(2));
    const json s = {{"name", name},
                    {"experiment", "exp.json"},
                    {"method", "random"},
                    {"seed", 4},
                    {"runCap", 6},
                    {"parameters",
                     {{{"path", "training.optimizer.learningRate"},
                       {"min", 0.0001},
                       {"max", 0.01},
                       {"log", true}}}}};
    writeText(d + "/spec.json", s.dump(2));
}

}  // namespace nnwb::test
