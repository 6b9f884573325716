#include "app/sweep/StartupBreakdown.h"

#include <algorithm>
#include <cstdio>

namespace nnwb {

namespace {
double number(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string format(const char* f, double a) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, a);
    return buf;
}
}  // namespace

void StartupBreakdown::add(const LaunchTimes& l, const nlohmann::json& startup, double readAt) {
    ++launches;
    total += std::max(0.0, readAt - l.launchedAt);
    file += l.fileSeconds;
    send += std::max(0.0, l.sentAt - l.launchedAt - l.fileSeconds);
    const double read = number(startup, "read"), written = number(startup, "written");
    if (!startup.is_object() || read <= 0.0 || written < read) {
        unsplit += std::max(0.0, readAt - l.sentAt);
        return;
    }
    ++split;
    (l.newProcess ? toNewWorker : toWorker) += std::max(0.0, read - l.sentAt);
    newProcesses += l.newProcess;
    const double parts[] = {number(startup, "arguments"), number(startup, "data"),
                            number(startup, "backend"), number(startup, "build"),
                            number(startup, "hash")};
    arguments += parts[0];
    data += parts[1];
    backend += parts[2];
    build += parts[3];
    hash += parts[4];
    double sum = 0.0;
    for (double p : parts) sum += p;
    line += std::max(0.0, written - read - sum);
    back += std::max(0.0, readAt - written);
    hashed += startup.value("dataHashed", false);
}

std::string StartupBreakdown::text() const {
    if (launches == 0) return "";
    const double n = launches;
    auto s = [&](double v) { return format("%.3f", v / n); };
    std::string t = "trial start-up, mean of " + std::to_string(launches) + " launches " +
                    s(total) + " s: experiment file " + s(file) + ", send " + s(send);
    if (split > 0) {
        const double worker = arguments + data + backend + build + hash + line;
        t += ", to the worker " + s(toWorker + toNewWorker);
        if (newProcesses > 0)
            t += " (" + std::to_string(newProcesses) + " worker starts, " +
                 format("%.3f", toNewWorker / newProcesses) + " s each)";
        t += ", in the worker " + s(worker) + " (arguments " + s(arguments) + ", data " + s(data) +
             ", backend " + s(backend) + ", model build " + s(build) + ", data hash " + s(hash) +
             " [" + std::to_string(hashed) + " hashed], line " + s(line) +
             "), back to the coordinator " + s(back);
    }
    if (split < launches)
        t += "; " + std::to_string(launches - split) + " launches without a worker breakdown " +
             format("%.3f", unsplit / std::max(1, launches - split)) + " s each after the send";
    if (betweens > 0)
        t += "; ready to the next launch " + format("%.3f", between / betweens) + " s (" +
             std::to_string(betweens) + ")";
    if (endings > 0)
        t += "; last epoch line to the end " + format("%.3f", ending / endings) + " s (" +
             std::to_string(endings) + ")";
    return t;
}

}  // namespace nnwb
