// A sweep trial's experiment file (<store>-sweeps/ID/trial-N.json), which the coordinator writes
// for the trial it launches next: the bytes Experiment::save writes, by writeFileAtomic (a
// temporary file and a rename; a link followed, a device written in place) without its two
// syncs, which sat on the slot's way from one trial to the next. Only the launched trial reads
// the file, at once and from the page cache, every launch of the trial (a resumed one too)
// writes it again, and the trial's run keeps the experiment in the store. Any thread.
#pragma once

#include <string>

namespace nnwb {

struct Experiment;

// Throws std::runtime_error("cannot save PATH: reason"); a failed write leaves no temporary file.
void writeTrialExperiment(const Experiment& e, const std::string& path);

}  // namespace nnwb
