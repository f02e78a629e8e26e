// The cross-rank collective timeline of a job's Flight Recorder dumps, in Chrome's Trace Event Format (the JSON
// object form that Perfetto UI and chrome://tracing open): a process per mesh dim ("expert mesh, efsdp"), a thread
// per rank in it, each collective a complete event ("X") from when the rank entered it until it completed (or,
// where the dump has no completion time, as gloo's have not, until the group's last member entered it: how long
// the rank waited for its peers), and the stragglers and stuck ranks as instant events ("i"). docs/records.md,
// "The timeline: --trace".
#pragma once

#include <ostream>

#include "meshscope/records/diagnose.h"

namespace meshscope::records {

// Writes the trace of records (its dumps) with diagnosis's places, stragglers and findings, streamed.
void write_trace(const RecordSet& records, const Diagnosis& diagnosis, std::ostream& out);

}  // namespace meshscope::records
